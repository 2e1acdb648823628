"""The sandbox's first process: it runs a version's steps and is the network they reach.

Started by bubblewrap as PID 1 of the sandbox's own PID namespace (`--as-pid-1`), so no process
of the skill can kill or stop it (the kernel delivers to a namespace's init only the signals it
handles, and it handles none), and non-dumpable, so none can read its memory or descriptors.
Written in Python because Node starts its inspector on SIGUSR1, which a step could send.

It reads its plan (JSON) from the path given as its one argument, writes its records as JSON
lines to descriptor 5 (a pipe to the runner outside, which no step inherits), and:

1. copies the fake home and project into the size-capped home,
2. serves the network: every TCP connection and UDP datagram of the namespace is redirected
   to it (the runner set that up before it started); it answers DNS for any name with an
   address of its own that remembers the name, reads what a client sends first (TLS: the
   name in its ClientHello; HTTP: the request, answered 200 with a canary script; anything
   else: answered with a canary command, as a reverse shell's operator would), and records
   destinations and bytes;
3. runs each step with its time budget, rlimits and capped output, and between steps kills
   whatever a step that ran out of time left behind;
4. at the end, kills everything else and hands back the final content of the files written
   outside the skill's folder, so the runner can read which configuration keys changed.

A canary is a command or script naming `/skillpress-canary/<nonce>`: if downloaded content is
run, the trace sees that path opened, executed or entered, and the nonce says which response it was.
"""

import asyncio
import base64
import ctypes
import hashlib
import ipaddress
import json
import os
import resource
import secrets
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import time

# Descriptors 3 and 4 were bubblewrap's; only 5, the records, stays open.
os.closerange(3, 5)
os.closerange(6, 1024)
with open(sys.argv[1]) as plan_file:
    PLAN = json.load(plan_file)
OUT = os.fdopen(5, "w", buffering=1)
LIMITS = PLAN["limits"]
CANARY_ROOT = "/skillpress-canary/"
SO_ORIGINAL_DST = 80
step_now = -1
recorded_bytes = 0
connections = 0


def emit(record):
    record["step"] = step_now
    OUT.write(json.dumps(record) + "\n")


def b64(data):
    return base64.b64encode(data).decode()


def keep(data):
    """What of a client's bytes is recorded: all of it until the pass's byte budget is spent."""
    global recorded_bytes
    room = max(0, LIMITS["recordedBytes"] - recorded_bytes)
    recorded_bytes += min(room, len(data))
    return data[:room]


# ── the network ─────────────────────────────────────────────────────────────────────────
names_by_address = {}
address_by_name = {}


def address_for(name):
    """Each name gets an address of its own in 198.18.0.0/15, so a connection says which name it was for."""
    if name not in address_by_name:
        n = len(address_by_name) + 2
        address = f"198.18.{n // 250}.{n % 250 + 1}"
        address_by_name[name] = address
        names_by_address[address] = name
    return address_by_name[name]


def dns_answer(query):
    """The answer to a DNS query: an A record of our own for any name, nothing for other types."""
    (qid, _flags, qdcount) = struct.unpack("!HHH", query[:6])
    at, labels = 12, []
    while at < len(query) and query[at] != 0:
        length = query[at]
        labels.append(query[at + 1 : at + 1 + length].decode("latin-1"))
        at += 1 + length
    qtype = struct.unpack("!H", query[at + 1 : at + 3])[0]
    question = query[12 : at + 5]
    name = ".".join(labels)
    header = struct.pack("!HHHHHH", qid, 0x8180, 1, 1 if qtype == 1 else 0, 0, 0)
    answer = b""
    if qtype == 1:
        answer = struct.pack("!HHHLH", 0xC00C, 1, 1, 60, 4) + socket.inet_aton(address_for(name))
    return name, qtype, header + question + answer


class Datagrams(asyncio.DatagramProtocol):
    def connection_made(self, transport):
        self.transport = transport

    def datagram_received(self, data, addr):
        try:
            name, qtype, answer = dns_answer(data)
            emit({"type": "dns", "name": name, "qtype": qtype, "bytes": b64(keep(name.encode()))})
            self.transport.sendto(answer, addr)
        except Exception:
            emit({"type": "udp", "bytes": b64(keep(data))})


def tls_server_name(hello):
    """The server name a TLS ClientHello asks for (SNI), or None."""
    try:
        at = 5 + 4 + 2 + 32
        at += 1 + hello[at]
        at += 2 + struct.unpack("!H", hello[at : at + 2])[0]
        at += 1 + hello[at]
        end = at + 2 + struct.unpack("!H", hello[at : at + 2])[0]
        at += 2
        while at + 4 <= end:
            kind, length = struct.unpack("!HH", hello[at : at + 4])
            if kind == 0:
                return hello[at + 9 : at + 4 + length].decode("latin-1")
            at += 4 + length
    except Exception:
        pass
    return None


# ── TLS: the sink is every host's server ────────────────────────────────────────────────
# The sandbox trusts one authority, made for the run (its key comes in the plan; the runner
# points the system's CA bundle at the file written here). For each name a client asks for,
# the sink makes a certificate that authority signs, so what is sent over HTTPS is read like
# HTTP. Certificates are built here in DER and signed with RSA by hand (PKCS #1 v1.5,
# SHA-256): the standard library verifies certificates but does not make them.
TLS = PLAN["tls"]


def der(tag, body):
    size = len(body)
    if size < 0x80:
        return bytes([tag, size]) + body
    length = size.to_bytes((size.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(length)]) + length + body


def seq(*parts):
    return der(0x30, b"".join(parts))


def integer(value):
    return der(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))


def oid(dotted):
    first, second, *rest = (int(p) for p in dotted.split("."))
    body = bytes([40 * first + second])
    for part in rest:
        chunk = [part & 0x7F]
        part >>= 7
        while part:
            chunk.append(0x80 | (part & 0x7F))
            part >>= 7
        body += bytes(reversed(chunk))
    return der(0x06, body)


def extension(identifier, value, critical=False):
    return seq(oid(identifier), *([der(0x01, b"\xff")] if critical else []), der(0x04, value))


def x509_name(common_name):
    return seq(der(0x31, seq(oid("2.5.4.3"), der(0x0C, common_name.encode()))))


SHA256_WITH_RSA = seq(oid("1.2.840.113549.1.1.11"), der(0x05, b""))
VALIDITY = seq(der(0x17, b"000101000000Z"), der(0x17, b"491231235959Z"))
CA_NAME = x509_name("Skillpress sandbox authority")
CA_KEY_ID = hashlib.sha1(base64.b64decode(TLS["caSpki"])).digest()


def rsa_sign(data):
    n, d = int(TLS["caN"], 16), int(TLS["caD"], 16)
    size = (n.bit_length() + 7) // 8
    digest_info = seq(seq(oid("2.16.840.1.101.3.4.2.1"), der(0x05, b"")), der(0x04, hashlib.sha256(data).digest()))
    padded = b"\x00\x01" + b"\xff" * (size - len(digest_info) - 3) + b"\x00" + digest_info
    return pow(int.from_bytes(padded, "big"), d, n).to_bytes(size, "big")


def certificate(subject, spki, extensions):
    serial = secrets.randbits(120) | 1 << 120
    tbs = seq(der(0xA0, integer(2)), integer(serial), SHA256_WITH_RSA, CA_NAME, VALIDITY, subject, spki, der(0xA3, seq(*extensions)))
    return seq(tbs, SHA256_WITH_RSA, der(0x03, b"\x00" + rsa_sign(tbs)))


def pem(der_bytes):
    body = base64.encodebytes(der_bytes).decode().replace("\n", "")
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "-----BEGIN CERTIFICATE-----\n" + "\n".join(lines) + "\n-----END CERTIFICATE-----\n"


def write_authority():
    """The run's authority, self-signed, where the sandbox's CA bundle points."""
    os.makedirs(os.path.dirname(TLS["caFile"]), exist_ok=True)
    cert = certificate(
        CA_NAME,
        base64.b64decode(TLS["caSpki"]),
        [
            extension("2.5.29.19", seq(der(0x01, b"\xff")), critical=True),
            extension("2.5.29.15", der(0x03, b"\x01\x06"), critical=True),
            extension("2.5.29.14", der(0x04, CA_KEY_ID)),
        ],
    )
    with open(TLS["caFile"], "w") as f:
        f.write(pem(cert))


tls_contexts = {}


def tls_context(name):
    """A server context whose certificate names `name` (a host name or an address)."""
    if name not in tls_contexts:
        try:
            alt = der(0x87, ipaddress.ip_address(name).packed)
        except ValueError:
            alt = der(0x82, name.encode("idna") if name.isascii() else name.encode())
        cert = certificate(
            x509_name(name[:64] or "sink"),
            base64.b64decode(TLS["leafSpki"]),
            [
                extension("2.5.29.17", seq(alt)),
                extension("2.5.29.19", seq()),
                extension("2.5.29.15", der(0x03, b"\x05\xa0"), critical=True),
                extension("2.5.29.37", seq(oid("1.3.6.1.5.5.7.3.1"))),
                extension("2.5.29.35", seq(der(0x80, CA_KEY_ID))),
            ],
        )
        path = f"{os.path.dirname(TLS['caFile'])}/{len(tls_contexts)}.pem"
        with open(path, "w") as f:
            f.write(pem(cert))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.num_tickets = 0
        context.load_cert_chain(path, TLS["leafKeyFile"])
        tls_contexts[name] = context
    return tls_contexts[name]


class Plain:
    """A connection's bytes as the client means them: as read, or decrypted."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    async def recv(self):
        return await read_some(self.reader, 65536, LIMITS["firstBytesSeconds"])

    def send(self, data):
        self.writer.write(data)


class Tls(Plain):
    def __init__(self, reader, writer, name):
        super().__init__(reader, writer)
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.session = tls_context(name).wrap_bio(self.incoming, self.outgoing, server_side=True)

    def flush(self):
        data = self.outgoing.read()
        if data:
            self.writer.write(data)

    async def handshake(self, hello):
        """True once the client accepted the certificate; False when it gave up (it trusts another authority)."""
        self.incoming.write(hello)
        while True:
            try:
                self.session.do_handshake()
                self.flush()
                return True
            except ssl.SSLWantReadError:
                self.flush()
                more = await super().recv()
                if not more:
                    return False
                self.incoming.write(more)
            except (ssl.SSLError, OSError):
                self.flush()
                return False

    async def recv(self):
        while True:
            try:
                return self.session.read(65536)
            except ssl.SSLWantReadError:
                more = await super().recv()
                if not more:
                    return b""
                self.incoming.write(more)
            except (ssl.SSLError, OSError):
                return b""

    def send(self, data):
        try:
            self.session.write(data)
        except (ssl.SSLError, OSError):
            return
        self.flush()


def canary_body(nonce, user_agent):
    path = CANARY_ROOT + nonce
    if any(word in user_agent.lower() for word in ("node", "undici", "axios", "deno", "bun")):
        # process.chdir is there in any context a downloaded script may be evaluated in.
        return f"try {{ process.chdir('{path}') }} catch {{}}\n"
    if "ruby" in user_agent.lower():
        return f"begin; Dir.chdir('{path}'); rescue StandardError; end\n"
    # A shell and Python at once: sh runs the path as a command; Python skips the first two
    # lines (a comment, a string) and opens it.
    return f"#!/bin/sh\n''''{path}; exit 0 #'''\nopen('{path}')\n"


async def read_some(reader, limit, wait):
    try:
        return await asyncio.wait_for(reader.read(limit), wait)
    except (asyncio.TimeoutError, ConnectionError):
        return b""


async def connection(reader, writer):
    global connections
    connections += 1
    nonce = f"{PLAN['nonce']}-{connections}"
    sock = writer.get_extra_info("socket")
    try:
        port, raw = struct.unpack("!2xH4s8x", sock.getsockopt(socket.SOL_IP, SO_ORIGINAL_DST, 16))
        address = socket.inet_ntoa(raw)
    except OSError:
        address, port = "unknown", 0
    record = {"type": "tcp", "address": address, "port": port, "host": names_by_address.get(address), "canary": nonce}
    stream = Plain(reader, writer)
    sent = await stream.recv()
    try:
        if sent[:1] == b"\x16":
            record["protocol"] = "tls"
            record["sni"] = tls_server_name(sent)
            tls = Tls(reader, writer, record["sni"] or record["host"] or address)
            # What a client that trusts the sandbox's authority sends is read in the clear; a
            # client that does not ends the handshake, and its hello is what it sent.
            if await tls.handshake(sent):
                stream = tls
                sent = await stream.recv()
            else:
                record["tlsRefused"] = True
                sent = b""
        if sent or record.get("protocol") != "tls":
            sent = await answer(stream, sent, record, nonce)
        await writer.drain()
    except Exception:
        pass
    record["bytes"] = b64(keep(sent))
    record["size"] = len(sent)
    emit(record)
    writer.close()


async def answer(stream, sent, record, nonce):
    """Reads what the client sends and answers it: HTTP with a canary script, anything else with a canary command."""
    if sent.split(b" ", 1)[0] in (b"GET", b"POST", b"PUT", b"PATCH", b"DELETE", b"HEAD", b"OPTIONS", b"CONNECT"):
        record.setdefault("protocol", "http")
        head, _, body = sent.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        want = int(headers.get("content-length", "0") or 0)
        while len(body) < min(want, LIMITS["recordedBytes"]):
            more = await stream.recv()
            if not more:
                break
            body += more
            sent += more
        method, _, rest = lines[0].partition(" ")
        record["http"] = {"method": method, "host": headers.get("host", ""), "path": rest.rpartition(" ")[0]}
        reply = canary_body(nonce, headers.get("user-agent", "")).encode()
        stream.send(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(reply) + reply)
        return sent
    record.setdefault("protocol", "tcp")
    stream.send(f"{CANARY_ROOT}{nonce}\n".encode())
    await stream.writer.drain()
    return sent + await stream.recv()


# ── the steps ───────────────────────────────────────────────────────────────────────────
def limit_step():
    """Runs in each step's process before it starts: the caps of docs/scanning.md, "Behaviour"."""
    os.setsid()
    for name, value in LIMITS["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (value, value))


def kill_the_rest():
    """Kills every process of the namespace but this one, until none is left."""
    for _ in range(50):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            return
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            return
        time.sleep(0.02)


async def capped_output(proc, cap):
    kept = b""
    while True:
        chunk = await proc.stdout.read(65536)
        if not chunk:
            return kept, False
        kept += chunk
        if len(kept) > cap:
            # Past the cap the pipe is closed: the writer dies of SIGPIPE (or gets EPIPE) instead
            # of filling it, and the step's end is not kept waiting on a pipe nobody reads.
            proc._transport.get_pipe_transport(1).close()
            return kept[:cap], True


async def run_step(index, step, env, deadline):
    global step_now
    step_now = index
    # The marker the runner reads in the trace: what this process forks next belongs to this step.
    try:
        os.open(f"/.skillpress-step-{index}", os.O_RDONLY)
    except OSError:
        pass
    budget = min(LIMITS["stepSeconds"], deadline - time.monotonic())
    started = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(
            *step["argv"],
            cwd=step["cwd"],
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            preexec_fn=limit_step,
        )
    except (OSError, ValueError, subprocess.SubprocessError) as error:
        # A step that cannot start (no such program, not executable) is a step that failed, not the run's end.
        emit({"type": "step", "index": index, "exit": None, "timedOut": False, "outputCapped": False, "output": b64(str(error).encode()), "seconds": 0, "diskFull": False})
        return False
    output = asyncio.ensure_future(capped_output(proc, LIMITS["outputBytes"]))
    timed_out = False
    try:
        await asyncio.wait_for(proc.wait(), budget)
    except asyncio.TimeoutError:
        timed_out = True
        kill_the_rest()
        await proc.wait()
    try:
        kept, capped = await asyncio.wait_for(output, 1)
    except asyncio.TimeoutError:
        kept, capped = b"", True
    disk = shutil.disk_usage(PLAN["home"])
    emit(
        {
            "type": "step",
            "index": index,
            "exit": proc.returncode,
            "timedOut": timed_out,
            "outputCapped": capped,
            "output": b64(kept[:4096]),
            "seconds": round(time.monotonic() - started, 3),
            "diskFull": disk.free < LIMITS["diskFreeBytes"],
        }
    )
    return timed_out


def written_files(since):
    """The files changed under home since the run began, outside the skill's folder: their final content."""
    found = []
    for root, dirs, files in os.walk(PLAN["home"]):
        if root.startswith(PLAN["skill"]):
            dirs[:] = []
            continue
        dirs[:] = [d for d in dirs if d != "node_modules"]
        for name in files:
            path = os.path.join(root, name)
            try:
                st = os.lstat(path)
                if st.st_mtime < since or not os.path.isfile(path):
                    continue
                with open(path, "rb") as f:
                    found.append({"type": "file", "path": path, "content": b64(f.read(LIMITS["snapshotFileBytes"]))})
            except OSError:
                continue
            if len(found) >= LIMITS["snapshotFiles"]:
                return found
    return found


async def main():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no step reads this process's memory or descriptors.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    shutil.copytree(PLAN["seed"], PLAN["home"], dirs_exist_ok=True, symlinks=True)
    write_authority()
    since = time.time()
    loop = asyncio.get_running_loop()
    # On 127.0.0.1, where the redirection delivers: answers then leave from the address the
    # connection tracking expects, and are undone into the address the client asked for.
    await loop.create_datagram_endpoint(Datagrams, local_addr=("127.0.0.1", PLAN["udpPort"]))
    server = await asyncio.start_server(connection, "127.0.0.1", PLAN["tcpPort"], limit=1 << 20)
    emit({"type": "ready"})
    deadline = time.monotonic() + LIMITS["passSeconds"]
    bare_timed_out = False
    for index, step in enumerate(PLAN["steps"]):
        if time.monotonic() >= deadline:
            emit({"type": "skipped", "index": index})
            continue
        if step.get("afterBare") and bare_timed_out:
            # The bare run of the same program used its whole step (it serves, or watches): run
            # with --help it would wait again, spending the pass on what was already seen.
            emit({"type": "step", "index": index, "exit": None, "timedOut": False, "outputCapped": False, "output": b64(b"not run: its bare run used its whole step"), "seconds": 0, "diskFull": False})
            bare_timed_out = False
            continue
        bare_timed_out = await run_step(index, step, PLAN["env"], deadline)
    # What runs in the background gets the rest of its grace, then everything but this process ends.
    await asyncio.sleep(min(LIMITS["graceSeconds"], max(0, deadline - time.monotonic())))
    kill_the_rest()
    server.close()
    for record in written_files(since):
        emit(record)
    emit({"type": "done"})


asyncio.run(main())
