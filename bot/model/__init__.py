"""Objects, pods (KServe, Helm values), kustomize builds and Flux paths, clusters, inventory."""
