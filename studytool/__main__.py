from studytool.cli import main

main()
