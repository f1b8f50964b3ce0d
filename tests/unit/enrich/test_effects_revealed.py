"""Credentials a command prints by what its words say, decryptions printed, and a printed credential filtered to
its names (blind-shell-15's credential-brokers family): enrich/effects/revealed.py, filters.names_from_pipe."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


def _printed(command: str, proj: Path) -> list[dict[str, object]]:
    return [e for e in ops(command, proj, "read") if e.get("secret_output") and e.get("shows") != "names"]


@pytest.mark.parametrize(
    "command",
    [
        "glab auth status --show-token",
        "pulumi stack output --show-secrets --json",
        "acme-cli config view --reveal",
        "acme-cli params get-all --with-decryption",
        "fly auth token",
        "flyctl auth token",
        "acme-cloud iam get-access-token",
        "acme-cloud token create --ttl 30d",
        "acme-cloud iam create-access-key --user bot",
        "acme-vault secrets get DB_PASSWORD",
        "sops -d secrets/prod.enc.yaml",
        "sops --decrypt secrets/prod.enc.yaml",
        "age -d -i key.txt secrets/prod.env.age",
        "gpg --quiet --decrypt notes.gpg",
        "aws sts assume-role --role-arn arn:aws:iam::1:role/Admin --role-session-name x",
        "aws iam create-access-key --user-name bot",
        "gcloud iam service-accounts keys create key.json --iam-account=a@b.iam.gserviceaccount.com",
        "az storage account keys list --account-name acme",
        "vault token create -field=token",
        "npm token create",
        "gopass show -o web/github",
        "infisical export --env=prod",
        "chamber export prod-api",
        "kwallet-query -r github.com kdewallet",
        "secret-tool search --all service github.com",
        "kubectl get secret db -o json | jq '.data'",
        "aws eks get-token --cluster-name prod",
        "az ad sp create-for-rbac --name deploy --role Contributor",
        "az acr login --name acme --expose-token",
        "ansible-vault view group_vars/prod/vault.yml",
        "terraform output -raw db_admin_password",  # a sensitive output printed in clear
        "terraform -chdir=infra output -json",  # every output, the sensitive ones in clear
        "tofu output -raw ssh_private_key",
    ],
)
def test_a_command_whose_words_say_it_prints_a_credential(command: str, tmp_path: Path) -> None:
    assert _printed(command, tmp_path)


@pytest.mark.parametrize(
    "command",
    [
        "gh auth login --with-token",
        "docker login -u me --password-stdin ghcr.io",
        "acme-cli deploy --no-show-secrets",
        "acme-cloud secrets list",
        "acme-cloud secret set DB_PASSWORD",
        "docker secret create app-config config.json",
        "kubectl create secret generic x --from-literal=a=b --dry-run=client -o yaml",
        "kubectl get secrets -n staging",
        "sops -e -i config/secrets.dev.yaml",
        "sops -d -i config/secrets.dev.yaml",
        "sops exec-env secrets/dev.enc.yaml 'npm test'",
        "age -d -o backup.tar backup.tar.age",
        "gpg --verify SHA256SUMS.gpg SHA256SUMS",
        "vault token capabilities secret/data/dev/api",
        "flyctl secrets list",
        "kubectl get secret db -o json | jq '.data | keys'",
        "op item list --format json | jq -r '.[].title'",
        "evans --host localhost --port 50051 --plaintext repl",
        "kubectl get pods --show-labels",
        "git config --show-origin --list",
        "terraform output -raw cluster_endpoint",
        "terraform output",  # sensitive outputs masked
        "terraform output db_admin_password",
        "terraform output -json cluster_endpoint",
    ],
)
def test_a_command_that_prints_no_credential(command: str, tmp_path: Path) -> None:
    assert _printed(command, tmp_path) == []


@pytest.mark.parametrize(
    "command",
    [
        "grep -rn 'password' src/ --include='*.py'",
        "rg -n 'SECRET' src/",
        "ag get_password src/",
        "acme-search token",
        "acme-search get_password",
    ],
)
def test_a_search_for_a_credential_word_prints_none(command: str, tmp_path: Path) -> None:
    assert _printed(command, tmp_path) == []
