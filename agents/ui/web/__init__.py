"""The web table: ``sly-scout serve`` plays Scout and Sly in the browser against chosen bots.

``sly_scout_env.agents.ui.web.app.create_app(state_dir)`` is the ASGI app (Starlette; the ``web`` extra);
``sly_scout_env.agents.ui.web.session`` holds the games without any HTTP; the page is plain HTML, CSS and
JS under ``static/`` (no build step). The API is documented in docs/web.md.
"""
