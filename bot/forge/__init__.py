"""Forges: where a review is published (GitHub, Forgejo/Gitea) and how the CI says which.

``ci.py`` tells the platform and the pull request from the CI run, ``factory.py`` builds the
publisher (tokens come from the environment only), ``preview.py`` shows what would be posted.
"""
