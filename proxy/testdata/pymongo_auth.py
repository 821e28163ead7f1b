"""Authenticate to the decongestant proxy with pymongo over TLS.

argv: a URI with the right password, one with a wrong password, one without
credentials (all with tls=true&tlsCAFile=...). Prints one line per check and
exits non-zero on the first failure.
"""
import sys

import pymongo
from pymongo.errors import OperationFailure

good, wrong, anon = sys.argv[1:4]

client = pymongo.MongoClient(good, serverSelectionTimeoutMS=60000)
status = client.admin.command("connectionStatus")
users = status["authInfo"]["authenticatedUsers"]
assert users == [{"user": "alice", "db": "admin"}], users
print("authenticated", users[0]["db"], users[0]["user"])
coll = client["proxytest_py_auth"]["docs"]
coll.drop()
coll.insert_many([{"_id": i} for i in range(3)])
print("find", len(list(coll.find())))
coll.drop()
client.close()

client = pymongo.MongoClient(wrong, serverSelectionTimeoutMS=60000)
try:
    client.admin.command("ping")
    raise AssertionError("a wrong password authenticated")
except OperationFailure as e:
    print("wrong password", e.code)
client.close()

client = pymongo.MongoClient(anon, serverSelectionTimeoutMS=60000)
client.admin.command("ping")
try:
    client["proxytest_py_auth"]["docs"].find_one()
    raise AssertionError("an unauthenticated find ran")
except OperationFailure as e:
    print("unauthenticated", e.code, e.details.get("errmsg"))
client.close()
