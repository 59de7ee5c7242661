"""Checks that hold for the whole site at once rather than one page: access control over every
route, bad input on every channel, secrets and unknown costs everywhere they could show, security
headers, error pages and the frame of every page, production settings, the README's walkthrough."""
