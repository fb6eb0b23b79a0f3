"""The `nats` source and sink with every kind of credentials nats-server takes: user and password, a token, an
NKey seed, a `.creds` file (a user JWT of an operator-mode account, and its seed), and TLS with a client
certificate (verify: true; the certificates are made here with openssl). Each reads and writes a stream; wrong
credentials are an error naming the option that holds them."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import tempfile

import nkeys
import pytest

from jetstream import JetStreamServer, nats_server_binary
from nats_jwt import UNLIMITED, Key, account_jwt, server_config, user_jwt

pytestmark = pytest.mark.skipif(nats_server_binary() is None, reason="no nats-server binary")

JETSTREAM_LIMITS = {**UNLIMITED, "mem_storage": -1, "disk_storage": -1, "streams": -1, "consumer": -1}


def signer(seed: bytes):
    pair = nkeys.from_seed(seed)
    return lambda nonce: base64.urlsafe_b64encode(pair.sign(nonce)).rstrip(b"=").decode()


def user_nkey() -> tuple[str, str]:
    seed = nkeys.encode_seed(os.urandom(32), nkeys.PREFIX_BYTE_USER)
    return seed.decode(), nkeys.from_seed(seed).public_key.decode()


def certificates(work: str) -> dict[str, str]:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, both signed by the CA (PEM files)."""

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=work, check=True, capture_output=True)

    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=test-ca",
    )
    with open(os.path.join(work, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for name in ("server", "client"):
        run(
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            f"{name}.key",
            "-out",
            f"{name}.csr",
            "-subj",
            f"/CN={name}",
        )
        run(
            "x509",
            "-req",
            "-in",
            f"{name}.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            f"{name}.pem",
            "-days",
            "2",
            "-extfile",
            "san.ext",
        )
    return {n: os.path.join(work, n) for n in ("ca.pem", "server.pem", "server.key", "client.pem", "client.key")}


def credentials(kind: str, work: str) -> tuple[dict, dict, dict]:
    """(server keyword arguments, the reader's options, the same options with wrong credentials)."""
    if kind == "user":
        conf = 'authorization { users = [ {user: "spark", password: "s3cret"} ] }'
        return (
            {"config": conf, "client_auth": {"user": "spark", "pass": "s3cret"}},
            {"user": "spark", "password": "s3cret"},
            {"user": "spark", "password": "wrong"},
        )
    if kind == "token":
        return (
            {"config": 'authorization { token: "t0ken" }', "client_auth": {"auth_token": "t0ken"}},
            {"token": "t0ken"},
            {"token": "nope"},
        )
    if kind == "nkey":
        seed, public = user_nkey()
        other, _ = user_nkey()
        return (
            {
                "config": f'authorization {{ users = [ {{nkey: "{public}"}} ] }}',
                "client_auth": {"nkey": public},
                "client_sign": signer(seed.encode()),
            },
            {"nkey_seed": seed},
            {"nkey_seed": other},
        )
    if kind == "creds":
        operator, system, account = Key("operator"), Key("account"), Key("account")
        accounts = {
            system.public: account_jwt(operator, system, "SYS"),
            account.public: account_jwt(operator, account, "APP", limits=JETSTREAM_LIMITS),
        }
        user, stranger = Key("user"), Key("user")
        files = {}
        for name, key in (("good", user), ("bad", stranger)):
            jwt = user_jwt(account if name == "good" else Key("account"), key, name)
            seed = key.pair.seed.decode()
            text = (
                f"-----BEGIN NATS USER JWT-----\n{jwt}\n------END NATS USER JWT------\n\n"
                f"-----BEGIN USER NKEY SEED-----\n{seed}\n------END USER NKEY SEED------\n"
            )
            files[name] = os.path.join(work, f"{name}.creds")
            with open(files[name], "w") as f:
                f.write(text)
        good_jwt = user_jwt(account, user, "setup")
        return (
            {
                "config": server_config(operator, system, accounts),
                "client_auth": {"jwt": good_jwt},
                "client_sign": signer(user.pair.seed),
            },
            {"creds_file": files["good"]},
            {"creds_file": files["bad"]},
        )
    if kind == "tls":
        c = certificates(work)
        # allow_non_tls: the test's own client (one socket read and written by two threads, which Python's TLS
        # sockets do not allow) sets up the stream in the clear; the source connects with TLS, presenting its
        # certificate (without one, the server refuses the handshake: the bad case)
        conf = (
            f'tls {{ cert_file: "{c["server.pem"]}", key_file: "{c["server.key"]}", ca_file: "{c["ca.pem"]}", '
            "verify: true, timeout: 5 }\nallow_non_tls: true"
        )
        return (
            {"config": conf, "secure_url": True},
            {"tls_ca": c["ca.pem"], "tls_cert": c["client.pem"], "tls_key": c["client.key"]},
            {"tls_ca": c["ca.pem"]},
        )  # no client certificate: the server refuses the handshake
    raise ValueError(kind)


# the option each kind's error names
NAMED = {"user": "user", "token": "token", "nkey": "nkey_seed", "creds": "creds_file", "tls": "tls_cert"}


@pytest.mark.parametrize("kind", ["user", "token", "nkey", "creds", "tls"])
def test_each_kind_of_credentials_reads_and_writes(session, kind):
    if kind == "tls" and shutil.which("openssl") is None:
        pytest.skip("no openssl to make certificates")
    work = tempfile.mkdtemp(prefix=f"subjxform-nats-{kind}-")
    try:
        server_args, good, bad = credentials(kind, work)
        with JetStreamServer(binary=nats_server_binary(), **server_args) as server:
            server.create_stream("SECURE", ["secure.>"])
            server.publish("SECURE", [(f"secure.{i % 3}", f"m{i}".encode(), None) for i in range(50)])

            def options(frame, opts):
                frame = frame.option("servers", server.url).option("stream", "SECURE")
                for k, v in opts.items():
                    frame = frame.option(k, v)
                return frame

            assert options(session.read.format("nats"), good).load().count() == 50
            df = session.createDataFrame([(f"secure.w{i}", f"w{i}") for i in range(20)], "subject STRING, data STRING")
            options(df.write.format("nats").mode("append"), good).save()
            assert server.state("SECURE")["messages"] == 70
            with pytest.raises(Exception) as e:
                options(session.read.format("nats"), bad).load().count()
            assert f"nats option '{NAMED[kind]}'" in str(e.value), str(e.value)[:3000]
    finally:
        shutil.rmtree(work, ignore_errors=True)
