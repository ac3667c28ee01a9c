"""evald's web UI: static, dependency-free ES modules served by the HTTP gateway under ``/ui/``.

The pages hold no data; every data call goes to the server's JSON APIs with the user's key
(:mod:`evald.ui.static` serves the files, :mod:`evald.ui.csrf` guards state-changing calls,
:mod:`evald.ui.access` says who may use the admin pages' APIs).
"""
