"""Drift catalogues: deliberate drift injected around each API's mock, and the contract checks that catch it."""
