"""Where the client connects and with which credentials, read as kbctl reads them
(client/config/resolve.cc): arguments first, then $KBENCH_SERVER / $KBENCH_TOKEN, then the
config file's context (the one named, else its current-context), then the defaults. The file is
kbctl's: $KBENCH_CONFIG, else ~/.config/kbench/config.yaml:

    current-context: lab
    contexts:
      - name: lab
        server: gpu1.lab:50051
        ca-file: /etc/kbench/ca.pem     # implies TLS; `tls: true` alone uses the system store
        token-file: ~/.config/kbench/lab.token   # or token: kbt_...
"""

import ipaddress
import os
import stat
import warnings
from dataclasses import dataclass, field

from .errors import ConfigError

# kbctl's default when no socket is found (client/kbctl.cc).
DEFAULT_TCP_SERVER = "127.0.0.1:50051"
# The shared host's socket (docs/security/auth.md, kbenchd --unix-socket).
SHARED_UNIX_SOCKET = "/run/kbench/kbenchd.sock"


@dataclass
class Context:
    name: str
    server: str = ""
    token: str = field(default="", repr=False)
    token_file: str = ""
    ca_file: str = ""
    tls: bool = False


@dataclass
class Config:
    current_context: str = ""
    contexts: list = field(default_factory=list)

    def find(self, name):
        return next((c for c in self.contexts if c.name == name), None)


@dataclass
class Connection:
    """The resolved server and credentials; the token is never shown in repr."""
    server: str
    token: str = field(default="", repr=False)
    ca_file: str = ""
    tls: bool = False
    context: str = ""


def _env(environ, name):
    value = environ.get(name, "")
    return value or None


def config_path(environ=None):
    """$KBENCH_CONFIG, else $HOME/.config/kbench/config.yaml ("" when neither is set)."""
    environ = os.environ if environ is None else environ
    if _env(environ, "KBENCH_CONFIG"):
        return environ["KBENCH_CONFIG"]
    if _env(environ, "HOME"):
        return os.path.join(environ["HOME"], ".config", "kbench", "config.yaml")
    return ""


def load_config(path):
    """A missing file is an empty config; a malformed one raises ConfigError naming the file."""
    if not path or not os.path.exists(path):
        return Config()
    import yaml  # PyYAML; only needed when there is a file to read
    try:
        with open(path) as f:
            root = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError(f"{path}: {e}") from e
    if root is None:
        return Config()
    contexts = root.get("contexts", []) if isinstance(root, dict) else None
    if not isinstance(contexts, list):
        raise ConfigError(f"{path}: expected a map with 'current-context' and a list 'contexts'")
    config = Config(current_context=str(root.get("current-context") or ""))
    for node in contexts:
        if not isinstance(node, dict) or not node.get("name"):
            raise ConfigError(f"{path}: a context has no name")
        config.contexts.append(Context(
            name=str(node["name"]), server=str(node.get("server") or ""),
            token=str(node.get("token") or ""), token_file=str(node.get("token-file") or ""),
            ca_file=str(node.get("ca-file") or ""), tls=bool(node.get("tls", False))))
    return config


def _read_token_file(path):
    path = os.path.expanduser(path)
    try:
        with open(path) as f:
            token = f.read().strip()
    except OSError as e:
        raise ConfigError(f"token-file {path}: cannot be read") from e
    if os.stat(path).st_mode & (stat.S_IRGRP | stat.S_IROTH):
        warnings.warn(f"token file {path} is readable by others; run chmod 600 {path}")
    return token


def _is_socket(path):
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


def default_server(environ):
    """kbenchd's Unix socket when one is there (a per-user kbenchd, then a shared host's), else
    kbctl's TCP default."""
    runtime = _env(environ, "XDG_RUNTIME_DIR")
    if runtime and _is_socket(os.path.join(runtime, "kbenchd.sock")):
        return "unix:" + os.path.join(runtime, "kbenchd.sock")
    if _is_socket(SHARED_UNIX_SOCKET):
        return "unix:" + SHARED_UNIX_SOCKET
    return DEFAULT_TCP_SERVER


def server_host(server):
    """The host of HOST:PORT, [V6]:PORT, a bare V6 address or gRPC's dns:///HOST:PORT."""
    for scheme in ("dns:///", "dns:", "ipv4:", "ipv6:"):
        if server.startswith(scheme):
            server = server[len(scheme):]
            break
    if server.startswith("["):
        close = server.find("]")
        return "" if close < 0 else server[1:close]
    if server.count(":") == 1:
        return server.split(":")[0]
    return server


def is_loopback(server):
    """By the address, never by its spelling: "127.evil.example" is a name, not a loopback."""
    if server.startswith("unix:"):
        return True
    host = server_host(server)
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve(server=None, token=None, ca_file=None, tls=False, context=None, environ=None):
    """The Connection to use, resolved as kbctl's flags, environment and config file are.
    Raises ConfigError for an unknown context, an unreadable token or CA file, or a token bound
    for a non-loopback server without TLS (it would cross the network readable)."""
    environ = os.environ if environ is None else environ
    path = config_path(environ)
    config = load_config(path)
    name = context or config.current_context
    chosen = Context(name="")
    if name:
        chosen = config.find(name)
        if chosen is None:
            origin = "context" if context else "current-context"
            raise ConfigError(f"{origin}: no context '{name}' in {path} "
                              "(kbctl config get-contexts)")
    out = Connection(server=server or _env(environ, "KBENCH_SERVER") or chosen.server
                     or default_server(environ), context=chosen.name)
    out.token = token or _env(environ, "KBENCH_TOKEN") or chosen.token
    if not out.token and chosen.token_file:
        out.token = _read_token_file(chosen.token_file)
    out.ca_file = os.path.expanduser(ca_file or chosen.ca_file)
    out.tls = bool(tls or chosen.tls or out.ca_file)
    if out.ca_file and not os.access(out.ca_file, os.R_OK):
        raise ConfigError(f"ca_file {out.ca_file}: cannot be read")
    if out.token and not out.tls and not is_loopback(out.server):
        raise ConfigError(f"refusing to send a token in plaintext to {out.server}; use TLS "
                          "(ca_file=FILE, or tls=True for the system's CAs)")
    return out
