"""The scenario file language: the YAML schema, positions for located errors, and loading files into validated models."""
