"""A hosted store deleted with what it holds through a program that manages hosted resources (blind-shell-15's
cloud-and-cluster-destruction family): enrich/effects/hosted_stores.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


def _hosted(command: str, proj: Path) -> list[str]:
    return [str(e["program"]) for e in ops(command, proj, "delete") if e.get("what") == "hosted"]


@pytest.mark.parametrize(
    "command",
    [
        "aws s3 rm s3://acme-prod-backups --recursive",
        "aws s3 rb s3://acme-prod-assets --force",
        "aws dynamodb delete-table --table-name orders",
        "aws rds delete-db-instance --db-instance-identifier prod-db --skip-final-snapshot",
        "aws cloudformation delete-stack --stack-name prod",
        "gcloud projects delete acme-prod --quiet",
        "gcloud storage rm --recursive gs://acme-prod-backups",
        "gsutil -m rm -r gs://acme-prod-backups",
        "gcloud storage rm -r gs://acme-prod-backups",
        "firebase database:remove / --force",
        "az group delete --name prod-rg --yes",
        "az storage blob delete-batch --source backups --account-name acme",
        "kubectl delete namespace production",
        "kubectl delete ns production",
        "kubectl delete pvc --all -n prod",
        "firebase firestore:delete --all-collections -y",
        "terraform destroy -auto-approve",
        "terraform -chdir=infra apply -destroy -auto-approve",
        "tofu destroy",
        "pulumi destroy --yes --stack prod",
        "mysqladmin -h 10.20.3.7 -u root -f drop shop",
        "mysqladmin --host=db.prod.internal drop shop",
        "redis-cli -h cache.prod.internal FLUSHALL",
        "redis-cli -u redis://cache.prod.internal:6379 flushdb",
        "mongosh 'mongodb://db.prod.internal:27017/app' --eval 'db.dropDatabase()'",
        "doctl compute droplet delete web-1 db-1 --force",  # a server goes with its disk
        "gcloud compute instances delete prod-db-1 --quiet",
        "aws ec2 terminate-instances --instance-ids i-0abc",
        "heroku apps:destroy --app acme-prod --confirm acme-prod",  # an app goes with its add-ons
        "fly apps destroy acme-prod -y",
        "docker volume prune -af",  # the local daemon's named volumes, other projects' included
        "docker system prune --volumes -f",
        "podman volume prune -a -f",
        "aws s3api put-bucket-lifecycle-configuration --bucket b --lifecycle-configuration "
        """'{"Rules":[{"ID":"x","Status":"Enabled","Filter":{},"Expiration":{"Days":1}}]}'""",
    ],
)
def test_a_store_deleted_with_what_it_holds_is_a_hosted_delete(command: str, tmp_path: Path) -> None:
    assert _hosted(command, tmp_path) == [command.split(maxsplit=1)[0]]


@pytest.mark.parametrize(
    "command",
    [
        "aws s3 rm s3://acme-dev-artifacts/tmp/app-1234.zip",
        "aws s3 sync dist/ s3://acme-staging-site --delete",
        "aws s3 ls s3://acme-dev-artifacts/ --recursive",
        "gsutil rm gs://acme-dev/a.txt",
        "gcloud projects describe acme-dev",
        "az group show --name dev-rg",
        "kubectl delete pod -l app=web -n dev",
        "kubectl delete -f k8s/dev.yaml",
        "terraform plan -destroy -out=destroy.tfplan",
        "terraform apply -auto-approve",
        "pulumi preview --diff",
        "pulumi destroy --preview-only",
        "az group delete --name dev-rg --what-if",
        "aws s3 rm s3://acme-prod-backups --recursive --dryrun",
        "az storage blob delete-batch --source backups --account-name acme --dryrun",
        "mysqladmin -h 127.0.0.1 -u root -f drop acme_test",
        "mysqladmin -u root -f drop acme_test",
        "redis-cli -h 127.0.0.1 -n 15 FLUSHDB",
        "redis-cli FLUSHALL",
        "mongosh 'mongodb://localhost:27017/acme_test' --eval 'db.dropDatabase()'",
        "mongosh 'mongodb://db.prod.internal:27017/app' --eval 'db.users.find()'",
        "firebase emulators:exec --only firestore 'npm test'",
        "gcloud compute instances delete ci-runner-7 --keep-disks=all --quiet",
        "aws ec2 terminate-instances --instance-ids i-0abc --dry-run",
        "heroku apps:info --app acme-prod",
        "kubectl delete deployment app -n dev",  # a name after a verb-first CLI's verb is no server or app
        "kubectl delete pod web-server-7d9f",
        "gcloud app versions delete v1 --quiet",  # one version of the app
        "docker volume prune -f",  # anonymous volumes only
        "docker system prune -a -f",
        "docker compose down -v",
        "aws s3api put-bucket-lifecycle-configuration --bucket b --lifecycle-configuration "
        """'{"Rules":[{"ID":"t","Status":"Enabled","Filter":{"Prefix":"tmp/"},"Expiration":{"Days":7}}]}'""",
    ],
)
def test_one_thing_a_rehearsal_or_a_local_store_is_no_hosted_delete(command: str, tmp_path: Path) -> None:
    assert _hosted(command, tmp_path) == []


@pytest.mark.parametrize(
    "command",
    [
        "mkdir -p /tmp/empty && aws s3 sync /tmp/empty s3://acme-prod-data --delete",
        "mkdir empty && aws s3 sync empty s3://acme-prod-data --delete",
        "mkdir -p /tmp/e && gsutil -m rsync -d -r /tmp/e gs://acme-prod",
        "mkdir -p /tmp/e && gcloud storage rsync /tmp/e gs://acme-prod --delete-unmatched-destination-objects",
    ],
)
def test_a_sync_deleting_what_an_empty_directory_lacks_is_a_hosted_delete(command: str, tmp_path: Path) -> None:
    assert _hosted(command, tmp_path) == [command.split("&& ", 1)[1].split(maxsplit=1)[0]]


@pytest.mark.parametrize(
    "command",
    [
        "aws s3 sync ./dist s3://acme-site-staging --delete",  # the everyday deploy
        "mkdir -p /tmp/e && aws s3 sync /tmp/e s3://acme-prod-data",  # nothing deleted
        "mkdir -p out && cp -r build/. out && aws s3 sync out s3://acme-site --delete",  # filled since
        "mkdir -p /tmp/e && aws s3 sync s3://acme-prod-data /tmp/e --delete",  # the bucket is the source
        "npm run build && gsutil -m rsync -d -r build gs://acme-site-staging",
        "gcloud storage rsync build gs://acme-site --recursive --delete-unmatched-destination-objects",
    ],
)
def test_a_sync_from_a_directory_with_content_is_no_hosted_delete(command: str, tmp_path: Path) -> None:
    assert _hosted(command, tmp_path) == []


@pytest.mark.parametrize(
    "command",
    [
        "fly apps destroy keep-api --yes",  # a keep word in a name
        "fly apps destroy plan-api --yes",
        "gcloud projects delete retain-prod --quiet",
        "gcloud projects delete acme-preview --quiet",
        "heroku apps:destroy --app shop-keep --confirm shop-keep",
        "neonctl branches delete dry-run-main --project-id acme",
        "mongosh mongodb://db.prod.internal/app --eval 'db.dropDatabase() /* dry */'",  # a word in code
        "mongosh mongodb://db.prod.internal/app --eval 'const keep = 1; db.dropDatabase()'",
        "gcloud compute instances delete prod-db --zone us-east1-b --keep-disks=boot --quiet",  # a part kept
        "gcloud compute instances delete prod-db --keep-disks boot --quiet",
        "aws s3 rm s3://acme-prod-backups --recursive --dryrun=false",
    ],
)
def test_rehearsal_and_keep_words_count_only_as_options(command: str, tmp_path: Path) -> None:
    assert _hosted(command, tmp_path)  # was no hosted delete: the word anywhere on the line cancelled it


@pytest.mark.parametrize(
    "command",
    [
        "gcloud compute instances delete ci-runner-7 --keep-disks all --quiet",
        "az deployment group what-if --resource-group prod-rg --template-file main.bicep --mode Complete",
        "neonctl branches delete preview-42 --project-id acme --dry-run",
    ],
)
def test_a_rehearsal_or_keep_option_still_deletes_nothing(command: str, tmp_path: Path) -> None:
    assert _hosted(command, tmp_path) == []
