"""The benchsdk semantic checks: state machines of whole `bench run`s and reads of existing data."""
