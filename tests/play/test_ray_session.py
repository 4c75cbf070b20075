"""Messages of the Ray layer that a user reads."""

from play.ray_session import join_failure


def _chained(outer: Exception, inner: Exception) -> Exception:
    try:
        try:
            raise inner
        except Exception as e:  # noqa: BLE001
            raise outer from e
    except Exception as e:  # noqa: BLE001
        return e


def test_a_refused_token_says_which_mode_to_set(monkeypatch):
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    err = _chained(ConnectionError("Failed to connect to Ray cluster at 10.0.0.1:6379"),
                   RuntimeError("Failed to connect to GCS. ... RPC error: InvalidAuthToken: "
                                "Authentication token is missing or incorrect"))
    text = join_failure("10.0.0.1:6379", err)
    assert "10.0.0.1:6379" in text
    assert "RAY_AUTH_MODE is disabled here" in text
    assert "RAY_AUTH_MODE=token" in text


def test_another_failure_keeps_rays_words(monkeypatch):
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    err = _chained(ConnectionError("Failed to connect to Ray cluster at h:1"),
                   RuntimeError("GCS timed out"))
    text = join_failure("h:1", err)
    assert text == "could not join the Ray cluster at h:1: Failed to connect to Ray cluster at h:1"
    assert "token" not in text

