"""The shared mock engine: spec loading and compiling, routing, the request
pipeline and the per-API `Profile`. It imports no API package."""

from ..policies.problems import Problem
from .api import Api
from .context import ANONYMOUS, Ctx, Principal, Reply, Upload
from .handlers import Handlers
from .profile import SPEC_ROOT, Auth, MockConfig, Profile, RateLimit

__all__ = [
    "ANONYMOUS",
    "SPEC_ROOT",
    "Api",
    "Auth",
    "Ctx",
    "Handlers",
    "MockConfig",
    "Principal",
    "Problem",
    "Profile",
    "RateLimit",
    "Reply",
    "Upload",
]
