"""BenchGen's domain: typed rows, the rules the reference states, and the run simulation.

Pure Python: nothing here knows about HTTP, the engine or the spec document; callers pass
in the values the spec fixes (the revocation window, the known scopes).
"""
