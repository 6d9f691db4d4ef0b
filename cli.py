"""Run the geobias CLI from a checkout: ``python cli.py mweat --lang fr``."""
from geobias.cli import main

main()
