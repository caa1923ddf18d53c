"""An origin that misbehaves on purpose, for AssetDeliveryTests (full tier).

    python3 misbehaving_origin.py ROOT PORT MODE [ARGUMENT]

Serves ROOT on 127.0.0.1:PORT with byte ranges, strong ETags and If-Range, as a web server does,
and prints "ready" once listening. MODE:
    normal          behave
    drop N          close the connection after N body bytes of every .pack response
    ignore-range    answer Range requests for .pack files with the whole file (200)
    change-etag     a new ETag on every response
    endless         after a .pack response's bytes, send more, forever
    flip OFFSET     flip one bit at byte OFFSET of every .pack file served
    stall           send half of a .pack response, then nothing
    trickle         send a .pack response one byte a second (each request stays alive)
    catalog DIR     serve latest.json and catalogs/ from DIR (an older, expired or unsafe
                    catalog, validly signed)
    flood           latest.json names root version 1024; every roots/N.root.json is 1 MiB
                    of spaces
    garbage-tail    the last 64 KiB of every .pack file served are random bytes
"""
import itertools
import os
import sys
import time

from werkzeug.serving import WSGIRequestHandler, make_server

root, port, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
argument = sys.argv[4] if len(sys.argv) > 4 else None
counter = itertools.count()


def app(environ, start_response):
    path = environ["PATH_INFO"].lstrip("/")
    name = os.path.basename(path)
    if mode == "flood" and (path == "latest.json" or path.startswith("roots/")):
        if path == "latest.json":
            data = b'{"format":1,"type":"latest","catalog":1,"root":1024}\n'
        else:
            data = b" " * (1 << 20)
        start_response("200 OK", [("Content-Length", str(len(data)))])
        return [data]
    from_catalog_folder = mode == "catalog" and (path == "latest.json" or path.startswith("catalogs/"))
    folder = argument if from_catalog_folder else root
    full = os.path.realpath(os.path.join(folder, path))
    if not full.startswith(os.path.realpath(folder)) or not os.path.isfile(full):
        start_response("404 Not Found", [("Content-Length", "0")])
        return [b""]
    data = open(full, "rb").read()
    stat = os.stat(full)
    etag = '"%x-%x"' % (stat.st_size, int(stat.st_mtime_ns))
    if mode == "change-etag":
        etag = '"%d"' % next(counter)
    is_pack = path.endswith(".pack")
    if mode == "garbage-tail" and is_pack:
        data = data[:-65536] + os.urandom(min(65536, len(data)))
    if mode == "flip" and is_pack:
        offset = int(argument)
        if offset < len(data):
            data = data[:offset] + bytes([data[offset] ^ 0x08]) + data[offset + 1:]
    status, headers, body = "200 OK", [("ETag", etag), ("Accept-Ranges", "bytes")], data
    wanted = environ.get("HTTP_RANGE")
    if_range = environ.get("HTTP_IF_RANGE")
    if wanted and wanted.startswith("bytes=") and not (mode == "ignore-range" and is_pack) and (if_range is None or if_range == etag):
        first, last = wanted[6:].split("-")
        first, last = int(first), min(int(last), len(data) - 1)
        body = data[first:last + 1]
        status = "206 Partial Content"
        headers.append(("Content-Range", "bytes %d-%d/%d" % (first, last, len(data))))
    if is_pack and mode in ("endless", "stall", "drop", "trickle"):
        start_response(status, headers)  # no Content-Length: the body ends when the connection does
        return misbehaving(body)
    headers.append(("Content-Length", str(len(body))))
    start_response(status, headers)
    return [body]


def misbehaving(body):
    if mode == "drop":
        yield body[: int(argument)]
        raise ConnectionAbortedError("dropped on purpose")
    if mode == "stall":
        yield body[: len(body) // 2]
        time.sleep(3600)
    if mode == "trickle":
        for index in range(len(body)):
            yield body[index:index + 1]
            time.sleep(1)
    yield body
    while True:
        yield b"A" * 65536


class Quiet(WSGIRequestHandler):
    def log_request(self, *args, **kwargs):
        pass


server = make_server("127.0.0.1", port, app, threaded=True, request_handler=Quiet)
print("ready", flush=True)
server.serve_forever()
