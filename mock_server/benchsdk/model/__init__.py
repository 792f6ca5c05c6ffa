"""The platform's domain: typed rows, rules and simulations. Pure: no HTTP, no engine."""
