"""CRM task templates: every module of this package registers its templates on import."""

import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module != "base":
        importlib.import_module(f"{__name__}.{_module}")
