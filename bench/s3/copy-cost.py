#!/usr/bin/env python3
"""What completing an upload at a staging key and copying it into place costs, against writing it in place.

    copy-cost.py ENDPOINT ACCESS_KEY SECRET_KEY [SIZE_MIB] [PARTS]

Against an S3 endpoint (the Ceph RGW of scripts/ceph-rgw.sh): a multipart upload of SIZE_MIB (default 512) in
8 MiB parts, PARTS (default 4) in flight, with boto3; then CopyObject of it to another key with its metadata
replaced (what S3Store does to add the SHA-256 record once the bytes are in); then a GET of the copy, checked.
Prints the seconds of each and the copy's share of the whole write."""
import hashlib, os, sys, time
import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config

endpoint, key_id, secret = sys.argv[1:4]
size = int(sys.argv[4]) << 20 if len(sys.argv) > 4 else 512 << 20
parts = int(sys.argv[5]) if len(sys.argv) > 5 else 4
s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=key_id, aws_secret_access_key=secret,
                  region_name="us-east-1", config=Config(s3={"addressing_style": "path"}))
bucket = "copy-cost-%d" % os.getpid()
s3.create_bucket(Bucket=bucket)
blob = os.urandom(size)
digest = hashlib.sha256(blob).hexdigest()
transfer = TransferConfig(multipart_threshold=8 << 20, multipart_chunksize=8 << 20, max_concurrency=parts)

import io
t0 = time.perf_counter()
s3.upload_fileobj(io.BytesIO(blob), bucket, "staging/upload", Config=transfer)
t1 = time.perf_counter()
s3.copy_object(Bucket=bucket, Key="final/object", CopySource={"Bucket": bucket, "Key": "staging/upload"},
               MetadataDirective="REPLACE", Metadata={"skylift-sha256": digest})
t2 = time.perf_counter()
s3.delete_object(Bucket=bucket, Key="staging/upload")
t3 = time.perf_counter()
got = s3.get_object(Bucket=bucket, Key="final/object")
body = got["Body"].read()
assert hashlib.sha256(body).hexdigest() == digest and got["Metadata"].get("skylift-sha256") == digest, "copy differs"
s3.delete_object(Bucket=bucket, Key="final/object")
s3.delete_bucket(Bucket=bucket)
upload, copy, delete = t1 - t0, t2 - t1, t3 - t2
print(f"{size >> 20} MiB, {parts} parts in flight: multipart upload {upload:.2f} s ({(size >> 20) / upload:.1f} MiB/s), "
      f"CopyObject into place {copy:.3f} s, delete of the staging object {delete:.3f} s; "
      f"the copy and delete add {100 * (copy + delete) / upload:.1f}% to the write")
