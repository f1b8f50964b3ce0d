"""What the catalogue knows of one program (hookd.enrich.effects.catalogue reads it from `data/*.json`): the
hooks where it runs code it is given, what it does with its operands and options, and the per-program facts the
effect model's readers act on."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hookd.enrich.effects.options import OptionTable


@dataclass(frozen=True, slots=True)
class Hook:
    """Where a program takes what it runs: `kind` is `option` (an option's value, after `prefix`), `operand`
    (the operand at `index`), `argv` (the words after `subcommands`), `env` (the variable `name`), `shell-args`
    (the words after `--` are arguments of a shell it starts: `capsh -- -c CMD`),
    `argv-code` (the words after `subcommands` are code), `command-code` (an operand that is one of `subcommands`
    followed by its argument in one word, as sbt takes them: the argument is code), `after-word` (the operand after
    each operand that is one of `subcommands` is code: `mlr … put EXPR`), `words` (every word after the
    program, options too, joined by spaces: `eval`); `code` says the value is code in `lang` rather than a command line;
    `same_shell`: the calling shell runs it itself (the shell builder walks it in place)."""

    kind: str
    option: str = ""
    prefix: str = ""
    code: bool = False
    lang: str = ""
    index: int = 0
    name: str = ""
    subcommands: tuple[str, ...] = ()
    same_shell: bool = False
    derived: bool = False  # from GTFOBins' examples: `prefix` is where the example put its payload
    argv: str = ""  # the value is an argv as a list: `comma` (gcc -wrapper), `dbus` (path=…,argv1=…,argv2=…)
    setting: bool = False  # the value is `KEY=VALUE` (apt's `-o Name::=value` too): a VALUE that is a command line runs
    # (variable, default prefix): the command sees the variable set to the output name, the last of two or more
    # operands (else the default) plus a suffix: split's `--filter` sees `$FILE`
    binds: tuple[str, ...] = ()
    leading: str = ""  # `env`: marker characters the program reads off the value's start (LESSOPEN's `|`, `-`)


@dataclass(frozen=True, slots=True)
class Launcher:
    subcommands: tuple[tuple[str, ...], ...] = ()  # alternatives: the words that must come first (`uv run`)
    fixed: int = 0  # operands before the command (`ip netns exec NAME cmd`)
    after: tuple[str, ...] = ()  # the command follows one of these words (`gdb --args`)


@dataclass(frozen=True, slots=True)
class Loaded:
    """An environment variable read as code (`loads`: `code`, a `prompt` the shell expands, a `function` bash
    imports, a `file` of code in `lang`, or `options` of an interpreter, some naming a file of code) by `programs`
    (empty: by every program,
    as the dynamic loader reads `LD_PRELOAD`, and npm's node reads `NODE_OPTIONS`)."""

    loads: str
    lang: str = "sh"
    programs: frozenset[str] = frozenset()
    options: frozenset[str] = frozenset()  # `options`: the value is options, these name a file of code (NODE_OPTIONS)
    commands: frozenset[str] = frozenset()  # `options` whose value is a command the program runs (`-XX:OnError=`)


class EnvironmentTable(dict[str, Loaded]):
    """The `environment` table by variable name; a name holding `*` stands for a family of variables one tool
    reads under names it builds (cargo's `CARGO_TARGET_<triple>_RUNNER`): `*` is any run of name characters."""

    def __init__(self, entries: Mapping[str, Loaded]) -> None:
        super().__init__({k: v for k, v in entries.items() if "*" not in k})
        self._families = [
            (re.compile("[A-Za-z0-9_]+".join(re.escape(part) for part in k.split("*"))), v)
            for k, v in entries.items()
            if "*" in k
        ]

    def get(self, name: str, default: Loaded | None = None) -> Loaded | None:  # type: ignore[override]
        found = super().get(name)
        if found is None:
            found = next((v for pattern, v in self._families if pattern.fullmatch(name)), None)
        return default if found is None else found

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def values(self) -> Any:
        return [*super().values(), *(v for _, v in self._families)]


@dataclass(frozen=True, slots=True)
class StartupFiles:
    """Files a shell or a desktop session runs when it starts (`startup_files`), or that other programs run or
    trust later (`runs_later`): dotfile `names` in the home, locations (`below`) whose files run wherever the
    home is, absolute files and directories of the system (`system`: cron's tables, service units, PAM,
    sudoers, the loader's preload list) and globs over the whole path (`patterns`: `site-packages/*.pth`)."""

    names: frozenset[str] = frozenset()
    below: tuple[str, ...] = ()
    system: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Modules:
    """A configuration-management tool run with a module (`ansible HOSTS -m MODULE -a ARGS`): the option naming
    the module, the one giving its `key=value` arguments, the host names and connection that are this machine,
    and per module the argument keys naming a path, the op each gets, and the op under `state=absent`."""

    option: str = ""
    args: str = ""
    local: frozenset[str] = frozenset()
    table: Mapping[str, tuple[tuple[str, ...], str, str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ShellSetup:
    """The words that make a program print the shell code of its own setup (`pyenv init -`): then options, a
    shell's name when `shell`, and when `names` the programs it registers (`register-python-argcomplete pytest`),
    its options then only those of `options` (an option naming a script it would run later is none of them)."""

    words: tuple[str, ...]
    shell: bool = False
    names: bool = False
    options: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Program:
    name: str
    source: str
    table: OptionTable
    operands: str = ""  # what every operand is: read, write, delete, copy, move, link, chmod, list, device, fetch, none
    first: str = ""  # the first operand, when it differs
    rest: str = ""  # the operands after the first, when they differ
    last: str = ""  # the last operand (of two or more), when it differs
    option_ops: Mapping[str, str] = field(default_factory=dict)  # an option's value is read/written/…
    makes: Mapping[str, frozenset[str]] = field(default_factory=dict)  # an option's file made, unless these modes
    # subcommands, quiet, unless: `openssl rsa -in KEY -noout`: under a quiet option (none of `unless`) the files its
    # options read print nothing of themselves: used, as `ssh -i KEY` uses a key
    prints_none: Mapping[str, frozenset[str]] = field(default_factory=dict)
    filter_lang: str = ""  # the language of its first operand, a filter of what it prints of its files (jq)
    output: str = ""  # what its standard output is, when it is one kind of text (ssh-keyscan: `host_keys`)
    keyword_ops: Mapping[str, str] = field(default_factory=dict)  # `if=`/`of=` operands (dd)
    recursive: frozenset[str] = frozenset()
    recursive_always: bool = False
    runs: tuple[Hook, ...] = ()
    launcher: Launcher | None = None
    script_operand: str = ""  # its first operand is a script file in this language (sh, python, …)
    pattern_first: bool = False  # the first operand is a pattern or program unless one of pattern_options gives it
    pattern_options: frozenset[str] = frozenset()
    # `grep -rl`, `rg --files`: it prints only the names of the files it searches (searches.listing_find); under
    # `follows_links` (`grep -R`, `rg -L`) below links to directories too, which no `find` stand-in shows
    lists_names: frozenset[str] = frozenset()
    follows_links: frozenset[str] = frozenset()
    target_options: frozenset[str] = frozenset()  # `-t DIR`: the destination of copy/move/link
    target_deletes: frozenset[str] = frozenset()  # `rsync --delete`: the destination loses what sources lack
    privilege: bool = False
    privilege_options: frozenset[str] = frozenset()  # `docker run --privileged`: the host's privileges handed over
    mount_options: frozenset[str] = frozenset()  # `-v SRC:DST`, `--mount source=SRC`: a host path bound into it
    container_runs: frozenset[str] = frozenset()  # `docker run`: subcommands whose words are the container's
    removes: frozenset[str] = frozenset()  # options under which what it reads is deleted after (`zip -m`, `7z -sdel`)
    subcommand_ops: Mapping[str, str] = field(default_factory=dict)  # `rclone purge PATH`: the op its operands get
    local_backends: frozenset[str] = frozenset()  # `:local:PATH`: an on-the-fly remote of a local file system
    # a command the program sends its server (words, any case) and the op of the operand after them: redis-cli's
    # `MODULE LOAD PATH` loads code into the server, `CONFIG SET dir PATH` makes it write its files there
    word_ops: Mapping[tuple[str, ...], str] = field(default_factory=dict)
    # (words, keys as globs, the file, `program` or `command`, the option of its arguments): `npm config set
    # script-shell X` names a program npm runs later; `npm pkg set scripts.x=CMD` a command line; a key that is an
    # option (`kubectl config set-credentials --exec-command=P --exec-arg=A`) is set to its value and arguments
    sets_code: tuple[tuple[tuple[str, ...], tuple[str, ...], str, str, str], ...] = ()
    # (words, what, op, when): `pip uninstall NAME` deletes, `pipx inject NAME …` writes into what NAME names;
    # `when`: only with one of these words after them (`pipx runpip NAME install X`, not `… NAME list`)
    deletes_named: tuple[tuple[tuple[str, ...], str, str, frozenset[str]], ...] = ()
    # (words, options, own): `pip --python PY install X` changes PY's environment; `own`: `ENV/bin/pip install X`
    environment_writes: tuple[tuple[tuple[str, ...], frozenset[str], bool], ...] = ()
    # (words, form): the manager's environment set (`set-environment A=B`: `assignments`; `setenv A B`: `pairs`)
    manager_environment: tuple[tuple[tuple[str, ...], str], ...] = ()
    # every command of a program that takes any unique prefix of a command's name (tmux's `set-env`)
    abbreviated_commands: frozenset[str] = frozenset()
    # `mise set [-g] NAME=V`: the config whose `[env]` it writes (env_commands.env_tables_written)
    env_tables: tuple[Mapping[str, Any], ...] = ()
    unit_files: Mapping[str, str] = field(default_factory=dict)  # `systemctl edit`: a drop-in, `link`: a link
    # (words, directory, match): `pyenv uninstall 3.11.9` removes the entry of its own directory the name selects
    removes_below: tuple[tuple[tuple[str, ...], str, str], ...] = ()
    link_farm: Mapping[str, Any] = field(default_factory=dict)  # `stow -t ~ PKG`: effects/farms.py
    clears_stores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # `journalctl --vacuum-time`: deletes
    # `unzip A.zip MEMBER… -d DIR`: the directory's option, operands `after` which members come, `words`, `flat`;
    # what selects extraction (`modes` options, key `letters`, not `unless`), `directory_here` (tar.py member_writes)
    members_below: Mapping[str, Any] = field(default_factory=dict)
    compiles: str = ""  # the option naming what it builds from its operands (`gcc -o FILE`)
    grants: str = ""  # privileges it gives a file: `mode` (a set-user-ID mode: chmod u+s), `capabilities`
    signal: str = ""  # pid, name, regex, path, all, unit
    regex_options: frozenset[str] = frozenset()
    pid_options: frozenset[str] = frozenset()  # `prlimit --pid PID`: a process it acts on (limits, attaches)
    select_options: frozenset[str] = frozenset()  # `pkill -P PPID`: what it signals is selected by these pids
    pid_changes: frozenset[str] = frozenset()  # `prlimit --pid PID --nofile`: none given a value, it only prints
    reads_memory: bool = False  # `gcore PID`: each process its operands name has its memory read out
    traces_memory: Mapping[str, Any] | None = None  # `strace -p PID`: its data printed (effects/traced.py)
    process_options: Mapping[str, str] = field(default_factory=dict)  # `cpulimit -e NAME`: its processes acted on
    pid_operand_with: frozenset[str] = frozenset()  # `chrt -p PRIO PID`: under these options the last operand is one
    implicit_files: tuple[str, ...] = ()  # files it loads from its directory unnamed (`make`: Makefile)
    link_options: frozenset[str] = frozenset()  # options that make its copies links (`cp -s`, `cp -l`)
    task_modules: Modules | None = None  # `ansible localhost -m file -a 'path=… state=absent'`: what it does
    # `logrotate CONF`: the files each stanza of a configuration it loads names are rewritten (rotated, truncated,
    # removed), except under these options (`-d`: nothing changes)
    rewrites_configured: frozenset[str] | None = None
    stop_words: frozenset[str] = frozenset()  # signal "unit": the subcommands that stop or remove a unit
    own_unit: bool = False  # signal "unit": every stop is of the program's own (`hookd service uninstall`)
    stop_all: frozenset[str] = frozenset()  # of those and their operands, the words that stop every unit (`exit`)
    # (start words, units): starting one of these units stops every unit (`systemctl start exit.target`)
    stop_all_units: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    power: frozenset[str] = frozenset()  # the operands that power the machine off or reboot it ("*": always)
    schedules: str = ""  # runs commands later, outside any hook: its input a shell "job" (at) or a cron "table"
    makes_empty: bool = False  # what it writes of its operands it makes empty (mkdir: new directories)
    passes_input: bool = False  # what it writes holds only what it reads (`sort -o F`, `tee F`: emptied.py)
    append_options: frozenset[str] = frozenset()  # under which it appends what it writes (`tee -a`)
    in_place_silent: Mapping[str, Any] = field(default_factory=dict)  # an in-place edit's code that prints no line
    sized_by: frozenset[str] = frozenset()  # `truncate -r REF`: the files written are sized as what it reads
    size_options: frozenset[str] = frozenset()  # `truncate -s -1G`: a size (coreutils' SIZE) each file is set to
    installs_code: tuple[tuple[str, ...], ...] = ()  # after these words, what it installs runs when invoked later
    schedule_inert: frozenset[str] = frozenset()  # options under which it only lists or removes (crontab -l)
    # the files it changes whatever its operands (userdel: /etc/passwd, …), after these subcommand words (none: any)
    writes_files: tuple[tuple[tuple[str, ...], str], ...] = ()
    # the directory its `writes_files` below `default` are in, when an option or variable names another (gpg --homedir)
    state_dir: Mapping[str, Any] = field(default_factory=dict)
    device_read_only: frozenset[str] = frozenset()
    remote_name: frozenset[str] = frozenset()  # `curl -O`: the download is written under the URL's name
    at_file_options: frozenset[str] = frozenset()  # `curl -d @file`: the file is read and sent
    at_file_args: bool = False  # httpie: request items `field@file`, `@file` send the file
    writes_in_place: frozenset[str] = frozenset()  # `sed -i`
    reads_in_loop: frozenset[str] = frozenset()  # `perl -n`: the code runs over each line of every operand
    # a compressor's rule (hookd.enrich.effects.replaced): `suffix`, `default` (compress|decompress), the options
    # that `decompress`, `keep` the file read, make it `reads_only`, name the `suffix_options`; `keeps` by default
    # unless one of `remove`; `pair`: two operands are input and output unless one of `many`
    replaces: Mapping[str, Any] = field(default_factory=dict)
    empties_in_place: frozenset[str] = frozenset()  # `truncate --size=0`: the operands' content is lost, as shred's
    # (words, the store it prints from, output formats that print no secret: `kubectl get secrets -o name`)
    prints_secret: tuple[tuple[tuple[str, ...], str, frozenset[str]], ...] = ()
    workdir_option: str = ""  # `terraform -chdir=DIR show`: before its subcommand, the directory it works in
    secret_stdin: frozenset[str] = frozenset()  # `docker login --password-stdin`: it authenticates with its stdin
    # the words that make it print the shell code of its own setup (`pyenv init -`), and whether a shell's name
    # may follow them: `eval "$(…)"` of that is the tool's installed code, not code the line made
    prints_shell: tuple[ShellSetup, ...] = ()
    network: bool = False
    sends: bool = False  # it hands what it is given to another host (`sendmail`, `mail`): effects/sends.py
    remote_operands: bool = False  # its operands may name another host's files (`scp f host:`): effects/sends.py
    sends_words: tuple[tuple[str, ...], ...] = ()  # after these words it sends (`openssl s_client`): effects/sends.py
    batch_puts: bool = False  # its batch on stdin sends the local files `put` names (sftp, tftp, ftp): effects/sends.py
    gtfobins: frozenset[str] = frozenset()  # the GTFOBins functions of the program (file-read, file-write, …)
    find: bool = False
    archive: bool = False
    plus_code: str = ""  # `vim +CMD`: the word after `+` is code in this language
    stdin_lang: str = ""  # `ed`: its standard input is code in this language
    # a shell or interpreter given no script operand reads its script on stdin (`bash < F` is `bash F`), unless
    # its entry says it does not; under these options it does even with operands (`sh -s ARG`)
    stdin_script: bool = False
    pipe_prefixes: tuple[str, ...] = ()  # an output "file" so prefixed is a command it pipes into (gs `%pipe%CMD`)
    script_after: frozenset[str] = frozenset()  # a verb its script operand comes after (`bun run FILE`)
    stdin_script_named: bool = False  # it reads its script on stdin only when its operand is `-` (`bpftrace -`)
    stdin_script_options: frozenset[str] = frozenset()
    modules: Mapping[str, str] = field(default_factory=dict)  # `python -m pip …` runs as the program `pip`
    bare_commands: bool = False  # `parallel` with no command: its inputs (stdin, after `:::`) are command lines
    include_options: frozenset[str] = frozenset()  # `grep --include=GLOB`, `rg -g GLOB`: the files searched
    stdin_names: frozenset[str] = frozenset()  # `cpio -o`: under these options stdin names the files read
    stdin_copies: frozenset[str] = frozenset()  # `cpio -p DIR`: the files stdin names are copied below DIR
    copy_when: frozenset[str] = frozenset()  # `pax -rw F… DIR`: with all of these, operands copied into the last
    code_file_options: frozenset[str] = frozenset()  # `awk -f FILE`: the program is in FILE
    code_file_lang: str = ""  # the language of that file (`make -f FILE`: make)
    # code_file_options name code only under one of these options (`pygmentize -x -l F.py:Lexer`: -x allows it)
    code_file_when: frozenset[str] = frozenset()
    code_file_named: bool = False  # the value is `FILE:NAME`, a class of FILE (`-l F.py:Lexer`)
    signal_options: frozenset[str] = frozenset()  # it signals only under one of these (`fuser -k`), when any
    space_options: frozenset[str] = frozenset()  # `fuser -n tcp 8765`: each name is in that space (`8765/tcp`)
    file_prefix: str = ""  # a pattern of what a file word may begin with that names how, not where (`file:`)
    # files it reads as instructions in a language (`xsltproc S.xsl`, `man -l F`, `ffmpeg -f concat -i L`)
    reads_code: tuple[Mapping[str, Any], ...] = ()
    # of code_file_options, those naming a library the main program is still given beside (`gawk -i FILE 'PROG'`)
    library_options: frozenset[str] = frozenset()
    editor: bool = False
    remote_command: bool = False  # `ssh host CMD` runs CMD on another host
    socat: bool = False
    host_copy: str = ""  # `docker cp SRC DEST`: the subcommand copying between the host and a container
    builds: tuple[tuple[str, ...], ...] = ()  # `pip install DIR`: after these words, a local package's code runs
    # a REST client: `words` before its endpoint (`gh api`), the options giving the `method`, or `method_operand`
    # (httpie: `http DELETE URL`), the API `base` an endpoint that is no URL is under (forge_apis)
    rest_api: Mapping[str, Any] = field(default_factory=dict)
    # a file server: the directory it serves to the network (`options` naming it, or the first `operand`; `when`:
    # only under that option, `php -S`), `default` when none is named
    serves: Mapping[str, Any] = field(default_factory=dict)
    # a program that manages hosted resources: its deletes of a whole store are hosted deletes (hosted_stores.py;
    # `whole`, `store`, `deletes`, `host` options, `code` options, `short` options' meanings)
    hosted: Mapping[str, Any] = field(default_factory=dict)
    retention: Mapping[str, Any] = field(default_factory=dict)  # `borg prune`: effects/retention.py
    sweeps: Mapping[str, Any] = field(default_factory=dict)  # `hg purge --all`: effects/retention.py
    # a decrypter: the `options` that decrypt, and those that send the plain text `elsewhere` (revealed.py)
    decrypts: Mapping[str, Any] = field(default_factory=dict)
    # the `words` that print the configuration's outputs and the `options` that print sensitive ones in clear
    # (`terraform output -raw NAME`): revealed.py
    clear_outputs: Mapping[str, Any] = field(default_factory=dict)
    # a kernel-parameter tool (`sysctl NAME`, `NAME=VALUE`): its operands are files below `root` (kernel_params.py)
    parameters: Mapping[str, Any] = field(default_factory=dict)
    # (words, file names, language): after these words it runs a file of its cwd it is not given (`make`: Makefile)
    implicit: tuple[tuple[tuple[str, ...], tuple[str, ...], str], ...] = ()
    # (words, kinds): the commands the project's own configuration holds that this subcommand runs
    # (`terraform apply`: its `local-exec` provisioners and `external` data programs; `docker compose up`: the
    # services' commands through their mounts): projectcode.project_lines, walked as the line's own
    project_runs: tuple[tuple[tuple[str, ...], frozenset[str]], ...] = ()
    property_command: tuple[str, str] = ("", "")  # `mvn -Dexec.executable=X -Dexec.args=…`: the command's two keys
    url_scripts: tuple[tuple[str, ...], ...] = ()  # after these words, a script operand may be a URL (`deno run URL`)
    url_options: frozenset[str] = frozenset()  # options whose value is where code to run is fetched (`ansible-pull -U`)
    url_packages: tuple[tuple[str, ...], ...] = ()  # after these words, each operand is a package, maybe a URL's
    index_options: Mapping[str, str] = field(default_factory=dict)  # `pip install -i URL`: the config file it sets
    # a variable of its environment read as one of its options (`PIP_INDEX_URL` is `--index-url`): name pattern ->
    # option, `{}` the pattern's group lower-cased with `-` for `_`
    index_variables: Mapping[str, str] = field(default_factory=dict)
    # derived from the above once, at build, for the per-command checks (hookd.enrich.effects.words)
    code_operand: bool = False  # a `runs` hook takes an operand as code or a command (`sed SCRIPT`)
    code_options: frozenset[str] = frozenset()  # options that give the code: code_file_options, `runs` options
    like: str = ""  # the program it is under another name (`bsdtar` is `tar`): its argument reader is that one's

    def files_written(self, operands: Sequence[str], options: Sequence[str], home: str) -> list[str]:
        """The absolute paths of `writes_files` this command line writes (`~/` in the home); a subcommand's none
        under an option that names where it writes instead (`hookd shim build --out DIR`). Words that are options
        are a command given as options (`gpg --import-ownertrust`): written when each is given."""
        elsewhere = any(self.option_ops.get(o, "").startswith("write") for o in options)
        return [
            home + path[1:] if path.startswith("~/") else path
            for words, path in self.writes_files
            if (
                set(words) <= set(options)
                if words[:1] and words[0][:1] == "-"
                else list(operands[: len(words)]) == list(words)
            )
            and not (words and elsewhere)
        ]

    def without_code_words(self, operands: list[str]) -> list[str]:
        """The operands less each `after-word` hook's verb and the code after it (`mlr put EXPR F`: F)."""
        verbs = {word for hook in self.runs if hook.kind == "after-word" for word in hook.subcommands}
        if not verbs:
            return operands
        return [w for k, w in enumerate(operands) if w not in verbs and not (k and operands[k - 1] in verbs)]

    def in_workdir(self, argv: Sequence[str], path: str) -> str:
        """A relative path as the program resolves it: below the directory its `workdir_option=DIR` names, given
        before the subcommand (the first word that is no option); as given otherwise."""
        if not self.workdir_option or path.startswith("/"):
            return path
        prefix = self.workdir_option + "="
        for word in argv[1:]:
            if not word.startswith("-"):
                break
            if word.startswith(prefix) and word[len(prefix) :]:
                return word[len(prefix) :].rstrip("/") + "/" + path
        return path

    def placer(self, place: Callable[[str], dict[str, Any]]) -> Callable[[str], dict[str, Any]]:
        """`place` for its file words, each without its `file_prefix` (`png:out.png` is out.png)."""
        if not self.file_prefix:
            return place
        prefix = re.compile(self.file_prefix)
        return lambda word: place(prefix.sub("", word, count=1))

    def code_files(self, options: Sequence[tuple[str, str | None]]) -> list[str]:
        """The files of code its options name (`awk -f F`); none without one of `code_file_when`."""
        if self.code_file_when and not any(o in self.code_file_when for o, _ in options):
            return []
        values = [v for o, v in options if o in self.code_file_options and v]
        return [v.rpartition(":")[0] or v if self.code_file_named else v for v in values]

    def writes_operands_in_place(
        self, options: list[tuple[str, str | None]], entries: frozenset[str] = frozenset()
    ) -> bool:
        """`sed -i`, `perl -pi`: an option under which the file operands are rewritten; an entry `OPTION=VALUE`
        only with that value (`gawk -i inplace`: the inplace extension rewrites each file it reads)."""
        entries = entries or self.writes_in_place  # (or the given ones: `empties_in_place`)
        for option, value in options:
            if option in entries:
                return True
            if value is not None and f"{option}={value.rsplit('/', 1)[-1]}" in entries:
                return True
        return False
