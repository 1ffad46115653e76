"""The pages in a real browser: Playwright driving headless Chromium against a live server.

Skipped, with the reason, when Playwright, Chromium or the web extra is missing.
``GONGZHU_WEB_SCREENSHOTS=docs/_static`` also writes the documentation's screenshots.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import gongzhu

pytestmark = [pytest.mark.browser, pytest.mark.one_engine]

CHROMIUM = os.environ.get("GONGZHU_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = os.environ.get("GONGZHU_WEB_SCREENSHOTS")


def missing() -> str | None:
    """Why the browser tests cannot run here, or ``None``."""
    for module, extra in (("starlette", "web"), ("uvicorn", "web"), ("playwright", "webtest")):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed: pip install '.[{extra}]'"
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        return f"no Chromium at {CHROMIUM}: apt-get install chromium (or set GONGZHU_CHROMIUM)"
    return None


def shot(page: Any, name: str) -> None:
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"web-{name}.png"), full_page=True)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    reason = missing()
    if reason:
        pytest.skip(reason)
    from gongzhu.web.lobby import Lobby
    from gongzhu.web.serve import ServerThread
    from gongzhu.web.settings import Settings

    lobby = Lobby(Settings(bot_delay=0.02, workers=2, tables_per_client=100))
    with ServerThread(lobby) as running:
        yield running.url, lobby


@pytest.fixture(scope="module")
def browser(server: tuple[str, Any]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1000, "height": 820}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(  # the content security policy refuses nothing the pages do
        "console",
        lambda message: (
            errors.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.set_default_timeout(15000)
    yield page
    context.close()
    assert not errors, errors  # no JavaScript error on any page


def seat_link(server: tuple[str, Any], players: str, *rules: str, **kwargs: Any) -> str:
    url, lobby = server
    table = lobby.open_table(list(rules), players.split(","), **kwargs)
    return f"{url}/play/{table.seats[0].token}"


def states(page: Any) -> int:
    return int(page.evaluate("Number(document.body.dataset.states || 0)"))


def wait_for_my_turn(page: Any, after: int) -> str:
    """Wait for a state newer than ``after`` where it is this seat's turn or the hand is over."""
    page.wait_for_function(
        """after => Number(document.body.dataset.states || 0) > after &&
        /Your turn|is over/.test(document.getElementById("status").textContent)""",
        arg=after,
    )
    return str(page.text_content("#status"))


def test_a_whole_hand_against_bots_through_the_page(page: Any, server: Any) -> None:
    page.goto(seat_link(server, "human,heuristic,heuristic,heuristic", "39baobao", seed=3))
    status = wait_for_my_turn(page, 0)
    assert "亮牌" in status and page.locator("#actions button").count() >= 1
    shot(page, "show")
    count = states(page)
    page.keyboard.press("1")  # the keyboard: the first show choice, show nothing
    status = wait_for_my_turn(page, count)
    refused = played = 0
    while "is over" not in status:
        assert "play a highlighted card" in status
        legal = page.locator("#holding button.card.legal")
        illegal = page.locator("#holding button.card.illegal")
        assert legal.count() >= 1
        if illegal.count() and not refused:  # the engine's explanation reaches the page
            illegal.first.click()
            page.wait_for_selector("#error[data-code='illegal-action']")
            assert "illegal action" in str(page.text_content("#error"))
            refused += 1
        if played == 5:
            shot(page, "table")
        count = states(page)
        if played % 2:  # the keyboard: move to a playable card, Enter plays it
            page.keyboard.press("ArrowRight")
            assert page.evaluate("document.activeElement.classList.contains('legal')")
            page.keyboard.press("Enter")
        else:
            legal.first.click()
        played += 1
        status = wait_for_my_turn(page, count)
    assert played == 13
    rows = page.locator(".sheet tbody tr")
    assert rows.count() == 4
    assert "raw" in str(rows.first.text_content())
    shot(page, "sheet")
    with page.expect_download() as download:
        page.click("text=hand 1 record")
    record = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    hand = gongzhu.replay(record)
    assert hand.is_over and len(hand.tricks) == 13


def test_the_viewer_steps_through_a_record_trick_by_trick(
    page: Any, server: Any, tmp_path: Path
) -> None:
    rules = gongzhu.load_rules("huapai")
    hand = rules.new_hand(seed=12)
    while not hand.is_over:
        legal = hand.legal_actions()
        hand.apply(legal[-1] if hand.phase is gongzhu.Phase.SHOW else legal[0])
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(hand.to_record()), encoding="utf-8")
    page.goto(server[0] + "/viewer")
    page.set_input_files("#file", str(path))
    page.wait_for_selector("#view:not([hidden])")
    assert page.text_content("#step") == "the deal (13 tricks)"
    assert page.locator("#seats .seat").nth(0).locator(".card").count() >= 13
    page.keyboard.press("ArrowRight")
    assert page.text_content("#step") == "trick 1 of 13"
    first = hand.tricks[0]
    shown = page.locator("#trick .played .card")
    assert [shown.nth(i).get_attribute("data-card") for i in range(4)] == [
        str(c) for c in first.cards
    ]
    winner = page.locator("#trick .winner")
    assert winner.get_attribute("data-seat") == str(first.winner)
    cards = page.locator(f"#seats .seat[data-seat='{first.leader}'] .cards .card")
    assert cards.count() == 12
    page.click("#next")
    assert page.text_content("#step") == "trick 2 of 13"
    shot(page, "viewer")
    page.keyboard.press("End")
    assert page.text_content("#step") == "trick 13 of 13"
    assert page.locator(".sheet tbody tr").count() == 4
    assert page.locator("#next").is_disabled()
    page.keyboard.press("Home")
    assert page.text_content("#step") == "the deal (13 tricks)"
    page.click("summary")  # a broken record: the server's reason, no view
    page.fill("#paste", '{"format": "gongzhu-hand/1"}')
    page.click("#load-paste")
    page.wait_for_function("() => document.getElementById('error').textContent.length > 0")
    assert "invalid record" in str(page.text_content("#error"))


def test_the_table_fits_a_phones_width(browser: Any, server: Any) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(seat_link(server, "human,heuristic,heuristic,heuristic", "huapai", seed=9))
        wait_for_my_turn(page, 0)
        assert page.locator("#holding button.card").count() == 13
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width}px wide on a 390px screen"
        shot(page, "phone")
    finally:
        context.close()


def test_reloading_restores_the_seat_and_a_second_window_can_take_it_over(
    page: Any, browser: Any, server: Any
) -> None:
    link = seat_link(server, "human,first,first,first", "39baobao", seed=4)
    page.goto(link)
    wait_for_my_turn(page, 0)
    count = states(page)
    page.locator("#actions button").first.click()
    wait_for_my_turn(page, count)
    before = page.locator("#holding button.card").evaluate_all("cs => cs.map(c => c.dataset.card)")
    page.reload()
    wait_for_my_turn(page, 0)
    after = page.locator("#holding button.card").evaluate_all("cs => cs.map(c => c.dataset.card)")
    assert after == before
    other = page.context.new_page()
    other.goto(link)
    other.wait_for_selector("#error[data-code='seat-taken']")
    assert "already open" in str(other.text_content("#error"))
    other.click("text=Take over this seat here")
    page.wait_for_selector("#error[data-code='taken-over']")
    wait_for_my_turn(other, 0)
    other.close()


def test_the_lobby_opens_a_table_with_chosen_rules_and_bots(page: Any, server: Any) -> None:
    page.goto(server[0] + "/")
    page.wait_for_selector("#base option[value='huapai']", state="attached")
    page.select_option("#base", "huapai")
    page.check("input[name=modifier][value='anmai']")
    page.select_option("#seat-2", "human")
    page.select_option("#seat-3", "random")
    shot(page, "lobby")
    page.click("#open")
    page.wait_for_selector("#links:not([hidden])")
    links = page.locator("a.seat-link")
    assert links.count() == 2
    page.goto(server[0] + str(links.first.get_attribute("href")))
    page.wait_for_function("() => document.getElementById('rules').textContent.includes('anmai')")


def test_the_lobby_opens_a_two_against_two_table(page: Any, server: Any) -> None:
    """The front page's format reaches the table: its page says so, and the table holds it
    (the table tells it to its bots: tests/test_table_formats.py)."""
    page.goto(server[0] + "/")
    page.wait_for_selector("#base option[value='39baobao']", state="attached")
    page.select_option("#format", "2v2")
    page.click("#open")
    page.wait_for_selector("#links:not([hidden])")
    href = str(page.locator("a.seat-link").first.get_attribute("href"))
    page.goto(server[0] + href)
    page.wait_for_function(
        "() => document.getElementById('hand-info').textContent.includes('2 against 2')"
    )
    token = href.rsplit("/", 1)[-1]
    lobby = server[1]
    table = next(t for t in lobby.tables.values() if any(s.token == token for s in t.seats))
    assert table.format == "2v2"


def test_the_viewer_opens_records_of_its_own_server_only(page: Any, server: Any) -> None:
    url, lobby = server
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    for source in ("//example.invalid/hand.json", "https://example.invalid/hand.json"):
        page.goto(f"{url}/viewer?record={source}")
        page.wait_for_function("() => document.getElementById('error').textContent.length > 0")
        assert "records of this server only" in str(page.text_content("#error"))
        assert page.locator("#view").is_hidden()
    assert all(found.startswith(url) for found in asked), asked
    # a record of this server opens: a table's finished hand, as its "(view)" link gives it
    table = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=6)
    hand = table.hand
    while not hand.is_over:  # seat 0 and the bots, played here before anyone connects
        hand.apply(hand.legal_actions()[0])
    table.match.record_hand(hand)
    table.records.append(hand.to_record())
    page.goto(f"{url}/viewer?record=/record/{table.seats[0].token}/1.json")
    page.wait_for_selector("#view:not([hidden])")
    assert page.text_content("#step") == "the deal (13 tricks)"


def test_the_viewer_shows_a_64_bit_seed_exactly(page: Any, server: Any, tmp_path: Path) -> None:
    seed = 2**63 - 25  # past 2**53: JavaScript's numbers would round it
    hand = gongzhu.load_rules().new_hand(seed=seed)
    while not hand.is_over:
        hand.apply(hand.legal_actions()[0])
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(hand.to_record()), encoding="utf-8")
    page.goto(server[0] + "/viewer")
    page.set_input_files("#file", str(path))
    page.wait_for_selector("#view:not([hidden])")
    assert f"seed {seed}" in str(page.text_content("#rules"))


class Proxy:
    """A TCP relay between the browser and the server, on 127.0.0.1.

    :meth:`cut` is a network change: the browser's side of every connection is
    closed, while the server's side stays open and unread, so the server still
    holds the seat for the old socket.
    """

    def __init__(self, target: str) -> None:
        host, port = target.removeprefix("http://").split(":")
        self.target = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self.stale: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                browser, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            self.pairs.append((browser, upstream))
            threading.Thread(target=self._pump, args=(browser, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, browser), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass

    def cut(self) -> None:
        pairs, self.pairs = self.pairs, []
        for browser, upstream in pairs:
            self.stale.append(upstream)  # still open: the server sees nothing
            browser.shutdown(socket.SHUT_RDWR)
            browser.close()

    def close(self) -> None:
        self.listener.close()
        for browser, upstream in self.pairs:
            browser.close()
            upstream.close()
        for upstream in self.stale:
            upstream.close()


def test_after_a_network_change_the_page_takes_its_seat_back(page: Any, server: Any) -> None:
    url, lobby = server
    proxy = Proxy(url)
    try:
        table = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=8)
        page.goto(f"{proxy.url}/play/{table.seats[0].token}")
        wait_for_my_turn(page, 0)
        held = table.seats[0].link
        assert held is not None
        proxy.cut()  # the old socket still holds the seat at the server
        page.wait_for_function("() => document.body.dataset.connection === 'reconnecting…'")
        page.wait_for_function("() => document.body.dataset.connection === 'connected'")
        count = states(page)
        assert table.seats[0].link is not None and table.seats[0].link is not held
        assert str(page.text_content("#error")) == ""  # no "seat taken": it was its own seat
        page.locator("#actions button").first.click()  # and the page plays on
        wait_for_my_turn(page, count)
    finally:
        proxy.close()
