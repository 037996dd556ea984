"""A Unix socket that a thread drains: a stand-in for sawtooth-record in the shim's CPU benches."""
import os
import socket
import tempfile
import threading


def drained_socket():
    """The path of a listening Unix socket whose peer reads and drops everything it is sent."""
    path = os.path.join(tempfile.mkdtemp(), "sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)

    def drain():
        conn, _ = server.accept()
        while conn.recv(1 << 20):
            pass

    threading.Thread(target=drain, daemon=True).start()
    return path


def drained_channel(channel_module):
    """A channel_module.Channel whose peer reads and drops everything it is sent."""
    return channel_module.Channel(drained_socket(), {"role": "bench"})
