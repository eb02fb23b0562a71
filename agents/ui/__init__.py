"""User interfaces: the ``sly-scout`` command (``cli``: one parser, one main), ``simulate``'s front end,
terminal play (``play``), the demo of ``make run`` (``demo``) and the web table (``web``)."""
