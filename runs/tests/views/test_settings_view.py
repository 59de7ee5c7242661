"""``/settings/``: the provider in force and whether a key is set (never the key itself);
everyone signed in may read it, only staff may change it, and what staff save is what the next
run uses. Bad values are refused with the reason next to the field."""

from __future__ import annotations

import pytest

from runs.engine.providers.config import current_config
from runs.models import ProviderSettings, Run

pytestmark = pytest.mark.django_db

URL = "/settings/"
CANARY = "sk-canary-71c0e2d94b8a4f13"


def settings_form(**fields: str) -> dict[str, str]:
    return {"preset": "", "base_url": "", "model": "", "temperature": "", **fields}


def field_paragraph(text: str, name: str) -> str:
    start = text.rindex("<p>", 0, text.index(f'for="id_{name}"'))
    return text[start : text.index("</p>", start)]


# --- access ----------------------------------------------------------------------------------


def test_anonymous_user_is_sent_to_login(client, rewind_settings):
    response = client.get(URL)

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/settings/"


def test_anonymous_post_is_sent_to_login_and_saves_nothing(client, rewind_settings):
    response = client.post(URL, settings_form(model="x"))

    assert response.status_code == 302
    assert not ProviderSettings.objects.exists()


# --- reading ---------------------------------------------------------------------------------


def test_it_shows_the_provider_in_force(signed_in, rewind_settings):
    rewind_settings.REWIND_LLM_TEMPERATURE = 0.2

    response = signed_in.get(URL)

    assert response.status_code == 200
    text = response.content.decode()
    assert "<html" in text
    assert '<dt>provider</dt><dd>simulator <span class="badge sim">offline simulator</span>' in text
    assert "<dt>model</dt><dd><code>rewind-sim-1</code></dd>" in text
    assert "<dt>temperature</dt><dd>0.2</dd>" in text
    assert "<dt>API key</dt><dd>not set</dd>" in text


@pytest.mark.parametrize("variable", ["REWIND_API_KEY", "OPENAI_API_KEY"])
@pytest.mark.parametrize("as_staff", [False, True])
def test_it_says_a_key_is_set_but_never_shows_it(
    client, dev_user, staff_user, rewind_settings, monkeypatch, variable, as_staff
):
    monkeypatch.setenv(variable, CANARY)
    client.force_login(staff_user if as_staff else dev_user)

    response = client.get(URL)

    text = response.content.decode()
    assert "<dt>API key</dt><dd>set (from the environment)</dd>" in text
    assert CANARY not in text
    assert CANARY[3:15] not in text  # not even a fragment of it
    if as_staff:
        form = response.context["form"]
        assert CANARY not in str(form.initial) and CANARY not in str(form)


def test_a_password_in_the_configured_base_url_is_not_shown(signed_in, rewind_settings):
    rewind_settings.REWIND_LLM_BASE_URL = f"http://rewind:{CANARY}@127.0.0.1:9/v1"
    rewind_settings.REWIND_LLM_MODEL = "m"

    text = signed_in.get(URL).content.decode()

    assert CANARY not in text
    assert "127.0.0.1:9/v1" in text


def test_a_configuration_error_is_shown_not_raised(signed_in, rewind_settings):
    rewind_settings.REWIND_LLM_PRESET = "bogus"

    response = signed_in.get(URL)

    assert response.status_code == 200
    assert "unknown REWIND_LLM_PRESET &#x27;bogus&#x27;" in response.content.decode()


def test_a_non_staff_user_sees_the_values_but_no_form(signed_in, rewind_settings):
    text = signed_in.get(URL).content.decode()

    assert "Only staff may change these settings." in text
    assert f'<form method="post" action="{URL}"' not in text


# --- changing --------------------------------------------------------------------------------


def test_a_non_staff_post_is_403_and_saves_nothing(signed_in, rewind_settings):
    response = signed_in.post(URL, settings_form(model="evil-model", temperature="1"))

    assert response.status_code == 403
    assert not ProviderSettings.objects.exists()
    assert current_config().model == "rewind-sim-1"


def test_staff_see_the_form_pre_filled(staff_client, rewind_settings):
    ProviderSettings.objects.create(pk=1, preset="simulator", model="saved-model", temperature=0.5)

    response = staff_client.get(URL)

    text = response.content.decode()
    assert f'<form method="post" action="{URL}"' in text
    assert 'name="model" value="saved-model"' in text
    assert 'name="temperature" value="0.5"' in text
    assert '<option value="simulator" selected>' in text


def test_staff_save_and_the_next_run_uses_it(staff_client, rewind_settings):
    response = staff_client.post(
        URL, settings_form(preset="simulator", model="house-model", temperature="0.4")
    )

    assert response.status_code == 302
    assert response["Location"] == URL
    saved = ProviderSettings.objects.get()
    assert (saved.preset, saved.model, saved.temperature) == ("simulator", "house-model", 0.4)
    assert saved.updated_by == "lead"
    config = current_config()
    assert (config.model, config.temperature, config.is_simulator) == ("house-model", 0.4, True)
    page = staff_client.get(URL).content.decode()
    assert "<dt>model</dt><dd><code>house-model</code></dd>" in page
    assert "last saved by lead" in page

    staff_client.post("/runs/new/", {"pipeline": "research"})

    run = Run.objects.get()
    assert run.provider["model"] == "house-model"
    assert run.provider["temperature"] == 0.4


def test_saving_blank_fields_falls_back_to_the_environment(staff_client, rewind_settings):
    ProviderSettings.objects.create(pk=1, preset="simulator", model="old", temperature=1.0)

    staff_client.post(URL, settings_form())

    assert current_config().model == "rewind-sim-1"
    assert current_config().temperature == 0.0


def test_a_custom_base_url_is_saved(staff_client, rewind_settings):
    staff_client.post(
        URL, settings_form(preset="custom", base_url="http://127.0.0.1:11434/v1", model="llama3")
    )

    config = current_config()
    assert (config.preset, config.base_url, config.model) == (
        "custom",
        "http://127.0.0.1:11434/v1",
        "llama3",
    )


def test_htmx_post_gets_a_client_redirect(staff_client, rewind_settings):
    response = staff_client.post(URL, settings_form(model="m"), headers={"HX-Request": "true"})

    assert response.status_code == 200
    assert response["HX-Redirect"] == URL


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        (
            {"preset": "custom", "base_url": "https://me:secret@llm.example/v1", "model": "m"},
            "base_url",
            "put no credentials in the URL",
        ),
        ({"temperature": "5"}, "temperature", "less than or equal to 2.0"),
        ({"temperature": "-0.5"}, "temperature", "greater than or equal to 0.0"),
        ({"preset": "custom", "model": "m"}, "base_url", "a custom preset needs a base URL"),
        ({"preset": "nonsense"}, "preset", "Select a valid choice"),
        ({"base_url": "not a url at all"}, "base_url", "Enter a valid URL"),
    ],
)
def test_a_bad_value_is_refused_and_nothing_is_saved(
    staff_client, rewind_settings, fields, field, message
):
    response = staff_client.post(URL, settings_form(**fields))

    assert response.status_code == 400
    assert message in field_paragraph(response.content.decode(), field)
    assert not ProviderSettings.objects.exists()


def test_a_refused_base_url_does_not_echo_its_password(staff_client, rewind_settings):
    # The form refuses to store the password; the page must not send it back either.
    response = staff_client.post(
        URL, settings_form(preset="custom", base_url=f"https://me:{CANARY}@llm.example/v1")
    )

    assert response.status_code == 400
    text = response.content.decode()
    assert CANARY not in text
    assert 'value="https://llm.example/v1"' in text  # the rest of what was typed is kept
    assert not ProviderSettings.objects.exists()


# --- issue 16, item 19: only http(s) providers; what looks wrong is said, to staff ---------------


@pytest.mark.parametrize(
    "url", ["ftp://models.example/v1", "file:///etc/passwd", "gopher://127.0.0.1:6379/_INFO"]
)
def test_a_base_url_that_is_not_http_is_refused_and_nothing_is_saved(
    staff_client, rewind_settings, url
):
    response = staff_client.post(URL, {"preset": "custom", "base_url": url})
    assert response.status_code == 400
    assert ProviderSettings.load().base_url == ""


def test_a_base_url_from_the_environment_that_is_not_http_is_a_configuration_error(
    signed_in, rewind_settings
):
    rewind_settings.REWIND_LLM_BASE_URL = "file:///etc/passwd"
    response = signed_in.get(URL)
    assert response.status_code == 200
    assert "must be http or https, not file" in response.content.decode()


@pytest.mark.parametrize(
    "url,says",
    [
        ("http://169.254.169.254/latest", "link-local"),
        ("http://127.0.0.1:5432/v1", "PostgreSQL"),
        ("http://[::1]:6379/v1", "Redis"),
    ],
)
def test_staff_are_warned_of_a_link_local_or_database_port_url(
    staff_client, rewind_settings, url, says
):
    rewind_settings.REWIND_LLM_BASE_URL = url
    assert says in staff_client.get(URL).content.decode()


def test_a_non_staff_user_is_not_shown_the_warning(signed_in, rewind_settings):
    rewind_settings.REWIND_LLM_BASE_URL = "http://127.0.0.1:5432/v1"
    assert "PostgreSQL" not in signed_in.get(URL).content.decode()
