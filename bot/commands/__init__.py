"""The command layer: the only code besides cli.py that sees argparse."""
