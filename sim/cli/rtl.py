"""Placeholder while the rtl commands are written."""


def register(app):
    pass
