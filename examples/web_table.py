"""A table of `gongzhu serve`, played in-process: one person (this script) against three bots.

Needs the web extra (``pip install 'gongzhu[web]'``).  The script builds the
application, opens a table, and plays seat 0 over the table's websocket with
Starlette's test client, exactly as the page does: it reads ``state``
messages and sends ``action`` messages.  To serve it for real instead::

    from gongzhu.web.serve import open_socket, serve
    serve(lobby, open_socket("127.0.0.1", 8000))
"""

import warnings

from gongzhu.web.app import create_app
from gongzhu.web.lobby import Lobby

with warnings.catch_warnings():  # Starlette 1.x prefers httpx2 for its test client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

lobby = Lobby()
table = lobby.open_table(["huapai"], ["human", "heuristic", "heuristic", "random"], seed=7)
token = table.seats[0].token

with TestClient(create_app(lobby)) as client, client.websocket_connect(f"/ws/{token}") as ws:
    ws.send_json({"type": "action", "action": "play 2C"})  # whoever's turn it is, checked
    while True:
        message = ws.receive_json()
        if message["type"] == "error":
            print(f"refused ({message['code']}): {message['message']}")
            continue
        if message["phase"] == "over":
            break
        if message["to_move"] == 0:  # my turn: my first legal action
            ws.send_json({"type": "action", "action": message["legal"][0]})

    sheet = message["sheet"]
    for seat in range(4):
        print(f"seat {seat}: final {sheet['final'][seat]:>5}  " + "; ".join(sheet["explain"][seat]))
    record = client.get(f"/record/{token}/1.json").json()
    print(f"record: {len(record['actions'])} actions, {len(record['tricks'])} tricks")
