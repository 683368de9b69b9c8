"""Randomized numeric variants drawn from the engine, and answer grading."""
