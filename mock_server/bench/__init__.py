"""The Bench platform API (`trybench-sdk` platform clients): spec-driven mock on its own origin."""
