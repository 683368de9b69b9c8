"""Study sessions, FSRS scheduling and the SQLite progress store."""
