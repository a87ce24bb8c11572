"""reviewbot: GitOps change review and policy linting for Kubernetes."""

__version__ = "0.1.0"
