"""Review comments as the forges render them, opened in a real browser (see browser.py)."""
