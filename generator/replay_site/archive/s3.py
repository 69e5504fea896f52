"""The archive in an S3 bucket (`--archive s3://bucket/prefix`), through boto3 (the `s3`
extra): the endpoint, region and credentials as boto3 finds them (AWS_ENDPOINT_URL,
AWS_PROFILE, ~/.aws/config, ...). An object is put whole or not at all, so the folder's
rule holds: a manifest is put after its chunks. Objects are put without an ACL, private to
the bucket's owner; a build never publishes them."""
from __future__ import annotations

import tempfile
from collections.abc import Callable
from typing import Any, BinaryIO

from replay_site.archive.folder import ArchiveError


class S3Backend:
    def __init__(self, url: str) -> None:
        try:
            import boto3
            from botocore.exceptions import BotoCoreError, ClientError
        except ImportError as exc:
            raise ArchiveError(f"--archive {url}: {exc} (pip install 'replay-site[s3]')") from None
        bucket, _, prefix = url.removeprefix("s3://").partition("/")
        if not bucket:
            raise ArchiveError(f"--archive {url}: no bucket named (s3://BUCKET/PREFIX)")
        self.bucket, self.prefix = bucket, f"{prefix.strip('/')}/" if prefix.strip("/") else ""
        self.where = f"s3://{bucket}/{self.prefix}"
        self._errors = (BotoCoreError, ClientError)
        self._client = boto3.client("s3")
        self._sizes: dict[str, int] = {}  # learnt from listings: `archive list` asks the size of every chunk
        try:
            self._client.head_bucket(Bucket=bucket)
        except self._errors as exc:
            raise ArchiveError(f"--archive {url}: the bucket cannot be reached ({exc})") from None

    def _call(self, method: str, **arguments: Any) -> Any:
        """A client call, its failures as OSError (FileNotFoundError for an object not there)."""
        try:
            return getattr(self._client, method)(Bucket=self.bucket, **arguments)
        except self._errors as exc:
            code = str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))
            if code in ("NoSuchKey", "404", "NotFound"):
                raise FileNotFoundError(f"{self.where}{arguments.get('Key', '')}: no such object") from None
            raise OSError(f"{self.where}: {exc}") from None

    def get(self, name: str) -> bytes:
        body = self._call("get_object", Key=self.prefix + name)["Body"]
        try:
            return body.read()
        except self._errors as exc:
            raise OSError(f"{self.where}{name}: {exc}") from None

    def put(self, name: str, data: bytes) -> None:
        self._call("put_object", Key=self.prefix + name, Body=data)
        self._sizes[name] = len(data)

    def put_from(self, fill: Callable[[BinaryIO], str]) -> str:
        with tempfile.TemporaryFile(prefix="replay-site-archive-") as spool:
            name = fill(spool)
            size = spool.tell()
            spool.seek(0)
            try:  # one PUT, or a multipart upload that exists only once it is completed
                self._client.upload_fileobj(spool, self.bucket, self.prefix + name)
            except self._errors as exc:
                raise OSError(f"{self.where}{name}: {exc}") from None
        self._sizes[name] = size
        return name

    def names(self, prefix: str) -> list[str]:
        found = []
        token: dict[str, str] = {}
        while True:
            page = self._call("list_objects_v2", Prefix=self.prefix + prefix, **token)
            for item in page.get("Contents", []):
                name = item["Key"].removeprefix(self.prefix)
                self._sizes[name] = item["Size"]
                found.append(name)
            if not page.get("IsTruncated"):
                return sorted(found)
            token = {"ContinuationToken": page["NextContinuationToken"]}

    def size(self, name: str) -> int:
        if name not in self._sizes:
            try:
                self._sizes[name] = self._call("head_object", Key=self.prefix + name)["ContentLength"]
            except OSError:
                return 0
        return self._sizes[name]

    def delete(self, name: str) -> None:
        self._call("delete_object", Key=self.prefix + name)
        self._sizes.pop(name, None)
