"""A backend in the original BDModules example app's shapes, serving fixed response files.

It stands for a team's own server, not archsh's: ids that are not UUIDs, string paging ids, and
collection pages whose info has no offset. It writes its port (and a newline) to PORT_FILE, then
serves on 127.0.0.1 until it is killed. Every request is appended to LOG_FILE, so a test can
check what archsh sent.

    python3 server.py FIXTURES_DIR LOG_FILE PORT_FILE
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

FIXTURES = sys.argv[1]
LOG = sys.argv[2]
ACCESS = "orig-access-token-0001"
REFRESH = "orig-refresh-token-0001"


def load(name):
    with open(f"{FIXTURES}/{name}", "rb") as file:
        return file.read()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def record(self, body=b""):
        with open(LOG, "a") as log:
            kind = self.headers.get("Content-Type", "")
            log.write(json.dumps({"method": self.command, "path": self.path,
                                  "content_type": kind, "body": body.decode("utf-8", "replace")}) + "\n")

    def authorized(self):
        return self.headers.get("Authorization") == f"Bearer {ACCESS}"

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        self.record(body)
        if urlparse(self.path).path != "/oauth/token":
            return self.answer(404, b'{"code":"ResourceNotFound","message":"no such route"}')
        try:
            fields = json.loads(body)
        except ValueError:
            fields = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        password_grant = (fields.get("grant_type") == "password"
                          and fields.get("username") == "grace@example.com"
                          and fields.get("password") == "hopper")
        refresh_grant = (fields.get("grant_type") == "refresh_token"
                         and fields.get("refresh_token") == REFRESH)
        if not (password_grant or refresh_grant):
            return self.answer(400, b'{"code":"InvalidCredentials","message":"wrong email or password"}')
        self.answer(200, load("login.json"))

    def do_GET(self):
        self.record()
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if not self.authorized():
            return self.answer(401, b'{"code":"Unauthorized","message":"a valid bearer token is required"}')
        if url.path == "/users/me":
            return self.answer(200, load("me.json"))
        if url.path == "/users/me/locations":
            if "offset" in query:
                return self.answer(200, load(f"standard-{query['offset']}.json"))
            since = query.get("since_id")
            return self.answer(200, load(f"realtime-{since or 'first'}.json"))
        self.answer(404, b'{"code":"ResourceNotFound","message":"no such route"}')


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[3] + ".tmp", "w") as port_file:
    port_file.write(f"{server.server_address[1]}\n")
os.replace(sys.argv[3] + ".tmp", sys.argv[3])
server.serve_forever()
