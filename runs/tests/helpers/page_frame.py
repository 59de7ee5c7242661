"""Reading a server-rendered page for what its frame must have (``Page``: its h1s, links,
scripts, ids and the first element of the body) and checking that frame (``assert_frame``: the
favicon, the skip link first in the body pointing at the main landmark). Used by
``sitewide/test_error_pages.py`` and ``sitewide/test_page_frame.py``.
"""

from __future__ import annotations

from html.parser import HTMLParser


class Page(HTMLParser):
    """What the checks need from a page: its h1s, links, scripts, ids and the skip link."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.h1: list[str] = []
        self.links: list[dict[str, str]] = []  # <link>
        self.anchors: list[dict[str, str]] = []  # <a>
        self.scripts = 0
        self.ids: set[str] = set()
        self.first_in_body: dict[str, str] | None = None
        self._in_body = self._in_h1 = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if "id" in values:
            self.ids.add(values["id"])
        if self._in_body and self.first_in_body is None:
            self.first_in_body = {"tag": tag, **values}
        if tag == "body":
            self._in_body = True
        elif tag == "h1":
            self._in_h1 = True
            self.h1.append("")
        elif tag == "link":
            self.links.append(values)
        elif tag == "a":
            self.anchors.append(values)
        elif tag == "script":
            self.scripts += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "h1":
            self._in_h1 = False

    def handle_data(self, data: str) -> None:
        if self._in_h1:
            self.h1[-1] += data

    def hrefs(self) -> set[str]:
        return {a.get("href", "") for a in self.anchors}


def page_of(response) -> Page:
    assert response["Content-Type"].startswith("text/html"), response["Content-Type"]
    return Page(response.content.decode())


def assert_frame(page: Page) -> None:
    """What every page of the site has: the favicon, the skip link first in the body, pointing
    at the main landmark."""
    icons = [link for link in page.links if link.get("rel") == "icon"]
    assert [i["href"] for i in icons] == ["/static/favicon.svg"]
    assert icons[0]["type"] == "image/svg+xml"
    assert page.first_in_body is not None
    assert page.first_in_body["tag"] == "a" and page.first_in_body["href"] == "#main"
    assert "skip-link" in page.first_in_body["class"]
    assert "main" in page.ids
