"""The cluster's configuration, without starting anything (fast)."""

from __future__ import annotations

from pathlib import Path

from flink_agents_memory import cluster


def test_the_wheels_config_yaml_flattens():
    home = cluster.flink_home()
    flat = cluster.flatten_yaml((home / "conf" / "config.yaml").read_text())
    assert flat["jobmanager.rpc.port"] == "6123"
    assert flat["env.java.opts.all"].startswith("--add-exports=")
    assert cluster.flink_python_jar(home).name.startswith("flink-python-")


def test_flatten_yaml_nesting_and_comments():
    text = "a:\n  b: 1  # one\n  c:\n    d: 'x y'\n# comment\ne: true\n"
    assert cluster.flatten_yaml(text) == {"a.b": "1", "a.c.d": "x y", "e": "true"}


def test_conf_is_loopback_only_and_under_the_state_dir(tmp_path):
    settings = cluster.ClusterSettings(base_dir=tmp_path, rest_port=18081, rpc_port=16123)
    conf = cluster.cluster_conf(settings, {"rest.address": "localhost", "x": "kept"})
    assert conf["x"] == "kept"
    for key in ("rest.address", "rest.bind-address", "jobmanager.rpc.address",
                "jobmanager.bind-host", "taskmanager.bind-host", "taskmanager.host"):
        assert conf[key] == "127.0.0.1"
    assert conf["rest.port"] == "18081" and conf["jobmanager.rpc.port"] == "16123"
    assert conf["high-availability.type"] == "NONE"
    assert conf["execution.checkpointing.dir"] == (tmp_path / "checkpoints").resolve().as_uri()
    assert conf["classloader.parent-first-patterns.additional"] == "pemja."


def test_prepare_links_the_wheel_and_flink_python_without_touching_it(tmp_path):
    settings = cluster.ClusterSettings(base_dir=tmp_path)
    cluster.prepare(settings)
    home = cluster.flink_home()
    jars = {p.name for p in settings.lib_dir.iterdir()}
    assert {p.name for p in (home / "lib").glob("*.jar")} < jars
    assert cluster.flink_python_jar(home).name in jars
    assert all(p.is_symlink() for p in settings.lib_dir.iterdir())
    written = cluster.flatten_yaml((settings.conf_dir / "config.yaml").read_text())
    assert written["taskmanager.numberOfTaskSlots"] == "2"
    assert not (home / "lib" / cluster.flink_python_jar(home).name).exists()


def test_submit_command_uses_this_interpreter_for_client_and_cluster():
    cmd = cluster.submit_command(cluster.ClusterSettings(), Path("examples/demo.py"), ["--x"],
                                 detached=True, parallelism=3, savepoint="file:/sp")
    assert cmd[1:8] == ["run", "-d", "-p", "3", "-s", "file:/sp", "-py"]
    assert cmd[cmd.index("-pyexec") + 1] == cmd[cmd.index("-pyclientexec") + 1]
    assert cmd[-1] == "--x"


def test_latest_checkpoint_is_the_newest_with_metadata(tmp_path):
    assert cluster.latest_checkpoint(tmp_path) is None
    for name in ("chk-3", "chk-12", "chk-13", "shared"):
        (tmp_path / name).mkdir()
    for name in ("chk-3", "chk-12"):
        (tmp_path / name / "_metadata").write_bytes(b"x")
    # chk-13 was cut short (no _metadata); chk-12 beats chk-3 by number, not by name
    assert cluster.latest_checkpoint(tmp_path) == tmp_path / "chk-12"
