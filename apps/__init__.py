"""The clones of enterprise software, served by one WSGI application (`apps.web`)."""
