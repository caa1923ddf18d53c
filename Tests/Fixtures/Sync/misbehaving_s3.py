"""An S3-compatible store that misbehaves on purpose, for StudySyncTests (full tier).

    python3 misbehaving_s3.py PORT ACCESS_KEY SECRET [PAGE]

Serves path-style S3 on 127.0.0.1:PORT, objects in memory: CreateBucket, PutObject, GetObject,
DeleteObject, ListObjectsV2 (prefix, continuation token, PAGE keys a page, 1000 by default). Every
request's AWS Signature Version 4 is checked against ACCESS_KEY and SECRET, with this file's own
implementation of the algorithm (a wrong one is SignatureDoesNotMatch, 403), and so is the
payload's SHA-256. Prints "ready" once listening.

The test sets faults at run time: POST /__faults with a JSON list replaces them,
    [{"kind": KIND, "method": "GET" | "PUT" | "LIST" | "DELETE" | "*", "match": TEXT, "count": N}]
each applying to the next N requests of that method whose key contains TEXT (N = -1: all):
    500            answer 500 InternalError; a PUT stores nothing
    stall          a GET sends half the object, then nothing; a PUT, LIST or DELETE answers nothing
    drip           a GET sends the object a byte every 0.3 s: never quiet long enough to stall
    truncate       a GET answers 200 with the first half of the object, without a length, and
                   closes the connection: a short object that looks whole
    lost-response  a PUT stores the object, then answers 500 (the client cannot know it landed)
    hide-newest    a listing leaves out the segment stored last (eventual consistency)
    redirect       answer 307 to the same key under /elsewhere/ (a client must not follow it)
GET /__log answers the requests seen, "METHOD PATH" a line (before any check); GET /__objects the
stored keys.
"""
import base64
import hashlib
import hmac
import json
import re
import sys
import threading
import time
from urllib.parse import quote, unquote
from xml.sax.saxutils import escape

from werkzeug.serving import WSGIRequestHandler, make_server

port, access_key, secret = int(sys.argv[1]), sys.argv[2], sys.argv[3]
page_size = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
lock = threading.Lock()
buckets = {}  # bucket -> {key: bytes}
stored_order = []  # keys in the order they were stored
faults = []
log = []


def error(start_response, status, code, message=""):
    body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>%s</Code><Message>%s</Message></Error>" % (code, escape(message))).encode()
    start_response(status, [("Content-Type", "application/xml"), ("Content-Length", str(len(body)))])
    return [body]


def encode(text):
    return quote(text, safe="-_.~")


def signature_problem(environ, method, raw_path, raw_query, body):
    """None when the request is signed with SECRET as SigV4 says; else the S3 error code."""
    match = re.match(
        r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/s3/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$",
        environ.get("HTTP_AUTHORIZATION", ""))
    if not match:
        return "AccessDenied"
    key_id, day, region, signed_headers, signature = match.groups()
    if key_id != access_key:
        return "InvalidAccessKeyId"
    payload_hash = environ.get("HTTP_X_AMZ_CONTENT_SHA256", "")
    if payload_hash != hashlib.sha256(body).hexdigest():
        return "XAmzContentSHA256Mismatch"
    pairs = []
    for part in raw_query.split("&") if raw_query else []:
        name, _, value = part.partition("=")
        pairs.append((encode(unquote(name)), encode(unquote(value))))
    canonical_query = "&".join("%s=%s" % pair for pair in sorted(pairs))
    lines = []
    for header in signed_headers.split(";"):
        value = environ.get("HTTP_" + header.upper().replace("-", "_"), "")
        lines.append("%s:%s\n" % (header, " ".join(value.split())))
    canonical = "\n".join([method, raw_path, canonical_query, "".join(lines), signed_headers, payload_hash])
    amz_date = environ.get("HTTP_X_AMZ_DATE", "")
    scope = "%s/%s/s3/aws4_request" % (day, region)
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + secret).encode()
    for part in (day, region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    return None if hmac.compare_digest(expected, signature) else "SignatureDoesNotMatch"


def take_fault(method, key):
    """The fault for this request, if one applies (its count goes down)."""
    with lock:
        for fault in faults:
            if fault["count"] == 0 or fault["method"] not in ("*", method) or fault.get("match", "") not in key:
                continue
            if fault["count"] > 0:
                fault["count"] -= 1
            return fault["kind"]
    return None


def nothing():
    """A body that never comes."""
    time.sleep(3600)
    yield b""


def drip(data):
    """The body a byte at a time, each just before a stall would be noticed."""
    for index in range(len(data)):
        yield data[index : index + 1]
        time.sleep(0.3)


def half_then_nothing(data):
    """The first half of a body, then nothing."""
    yield data[: len(data) // 2]
    time.sleep(3600)


def app(environ, start_response):
    method = environ["REQUEST_METHOD"]
    raw = environ.get("REQUEST_URI") or environ.get("RAW_URI") or environ["PATH_INFO"]
    raw_path, _, raw_query = raw.partition("?")
    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(length) if length else b""
    if raw_path == "/__faults" and method == "POST":
        global faults
        with lock:
            faults = json.loads(body or b"[]")
        start_response("204 No Content", [])
        return [b""]
    if raw_path in ("/__log", "/__objects"):
        with lock:
            lines = log if raw_path == "/__log" else sorted(k for objects in buckets.values() for k in objects)
            data = "".join(line + "\n" for line in lines).encode()
        start_response("200 OK", [("Content-Length", str(len(data)))])
        return [data]
    with lock:
        log.append("%s %s" % (method, raw_path))
    problem = signature_problem(environ, method, raw_path, raw_query, body)
    if problem:
        return error(start_response, "403 Forbidden", problem, "the request's signature does not check")
    parts = unquote(raw_path).lstrip("/").split("/", 1)
    bucket, key = parts[0], parts[1] if len(parts) > 1 else ""
    query = dict((unquote(n), unquote(v)) for n, _, v in (p.partition("=") for p in raw_query.split("&") if p))
    kind = "LIST" if method == "GET" and not key else method
    fault = take_fault(kind, key)
    if fault == "redirect":
        start_response("307 Temporary Redirect", [("Location", "http://127.0.0.1:%d/elsewhere/%s" % (port, key)), ("Content-Length", "0")])
        return [b""]
    if fault == "500":
        return error(start_response, "500 Internal Server Error", "InternalError", "a fault on purpose")
    if fault == "stall" and kind != "GET":
        start_response("200 OK", [])
        return nothing()
    if method == "PUT" and not key:
        with lock:
            buckets.setdefault(bucket, {})
        start_response("200 OK", [("Content-Length", "0")])
        return [b""]
    with lock:
        objects = buckets.get(bucket)
    if objects is None:
        return error(start_response, "404 Not Found", "NoSuchBucket")
    if kind == "LIST":
        prefix = query.get("prefix", "")
        after = base64.urlsafe_b64decode(query["continuation-token"]).decode() if "continuation-token" in query else ""
        with lock:
            keys = sorted(k for k in objects if k.startswith(prefix) and k > after)
            sizes = {k: len(objects[k]) for k in keys}
            newest = [k for k in reversed(stored_order) if "/segments/" in k and k in objects]
        if fault == "hide-newest" and newest:
            keys = [k for k in keys if k != newest[0]]
        page, rest = keys[:page_size], keys[page_size:]
        xml = ['<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
               "<Name>%s</Name><Prefix>%s</Prefix><KeyCount>%d</KeyCount><MaxKeys>%d</MaxKeys><IsTruncated>%s</IsTruncated>"
               % (escape(bucket), escape(prefix), len(page), page_size, "true" if rest else "false")]
        if rest:
            xml.append("<NextContinuationToken>%s</NextContinuationToken>" % base64.urlsafe_b64encode(page[-1].encode()).decode())
        for k in page:
            xml.append("<Contents><Key>%s</Key><Size>%d</Size><StorageClass>STANDARD</StorageClass></Contents>" % (escape(k), sizes[k]))
        xml.append("</ListBucketResult>")
        data = "".join(xml).encode()
        start_response("200 OK", [("Content-Type", "application/xml"), ("Content-Length", str(len(data)))])
        return [data]
    if method == "PUT":
        with lock:
            objects[key] = body
            stored_order.append(key)
        if fault == "lost-response":
            return error(start_response, "500 Internal Server Error", "InternalError", "stored, but the answer is lost")
        start_response("200 OK", [("ETag", '"%s"' % hashlib.md5(body).hexdigest()), ("Content-Length", "0")])
        return [b""]
    if method == "DELETE":
        with lock:
            objects.pop(key, None)
        start_response("204 No Content", [])
        return [b""]
    if method == "GET":
        with lock:
            data = objects.get(key)
        if data is None:
            return error(start_response, "404 Not Found", "NoSuchKey", key)
        if fault == "stall":
            start_response("200 OK", [("Content-Length", str(len(data)))])
            return half_then_nothing(data)
        if fault == "drip":
            start_response("200 OK", [("Content-Length", str(len(data)))])
            return drip(data)
        if fault == "truncate":
            start_response("200 OK", [("Connection", "close")])  # no length: the body ends when the connection does
            return [data[: len(data) // 2]]
        start_response("200 OK", [("Content-Length", str(len(data)))])
        return [data]
    return error(start_response, "405 Method Not Allowed", "MethodNotAllowed")


class Quiet(WSGIRequestHandler):
    def log_request(self, *args, **kwargs):
        pass


server = make_server("127.0.0.1", port, app, threaded=True, request_handler=Quiet)
print("ready", flush=True)
server.serve_forever()
