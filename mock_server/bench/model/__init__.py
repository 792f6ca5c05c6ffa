"""The Bench platform domain: typed rows, rules and simulations. Pure Python, no engine."""
