"""The web explorer: the built TypeScript bundle (web/ -> static/) served at /ui by the API process."""
