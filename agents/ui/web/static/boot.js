// Starts the page once app.js and the game tables are loaded (no inline script: the
// Content-Security-Policy allows scripts from the server's own files only).
"use strict";
APP.boot();
