"""reviewbot: GitOps change review and policy linting for Kubernetes."""

__version__ = "0.2.0"
