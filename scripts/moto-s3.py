#!/usr/bin/env python3
"""An S3 service for tests: moto in server mode on a free loopback port.

Usage: moto-s3.py verifying|lenient
Prints "READY <port> <access key id> <secret access key>" once it serves, then runs until stdin closes
(the test process that started it exited, however it exited).

verifying: after three unauthenticated calls (which make an IAM user, its policy and its key) moto checks
every request's SigV4 signature and key, so a signing mistake fails the tests. lenient: no checks.
"""
import json
import os
import sys

if sys.argv[1:] == ["verifying"]:
    os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"

from moto.server import ThreadedMotoServer  # noqa: E402
import boto3  # noqa: E402

server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
port = server.get_host_and_port()[1]
iam = boto3.client("iam", endpoint_url=f"http://127.0.0.1:{port}", aws_access_key_id="bootstrap",
                   aws_secret_access_key="bootstrap", region_name="us-east-1")
iam.create_user(UserName="skylift")
iam.put_user_policy(UserName="skylift", PolicyName="all", PolicyDocument=json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
key = iam.create_access_key(UserName="skylift")["AccessKey"]
print("READY", port, key["AccessKeyId"], key["SecretAccessKey"], flush=True)
sys.stdin.read()
os._exit(0)
