"""Placeholder while the train commands are written."""


def register(app):
    pass
