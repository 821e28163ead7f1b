"""Commit transactions through the decongestant proxy with pymongo, for proxy/labels_integration_test.go.

  python3 pymongo_txn.py HOST:PORT DB PRIMARY

Into DB.c through the proxy at HOST:PORT: a transaction committed with session.commit_transaction() and one
run by with_transaction, each commit's first attempt over a connection the primary closes (failCommand
closeConnection, times 1, set on the PRIMARY directly). pymongo must retry each commit itself
(RetryableWriteError) and succeed, and run with_transaction's callback once. Prints the callback count and
the documents found, one line each.
"""
import sys

import pymongo

addr, db, primary = sys.argv[1], sys.argv[2], sys.argv[3]
client = pymongo.MongoClient(f"mongodb://{addr}/", serverSelectionTimeoutMS=60000)
coll = client[db]["c"]
direct = pymongo.MongoClient(f"mongodb://{primary}/", directConnection=True)


def break_next_commit():
    direct.admin.command("configureFailPoint", "failCommand", mode={"times": 1},
                         data={"failCommands": ["commitTransaction"], "closeConnection": True})


with client.start_session() as s:
    s.start_transaction()
    coll.insert_one({"_id": "explicit"}, session=s)
    break_next_commit()
    s.commit_transaction()

calls = 0


def callback(s):
    global calls
    calls += 1
    coll.insert_one({"_id": "with_transaction", "call": calls}, session=s)
    break_next_commit()


with client.start_session() as s:
    s.with_transaction(callback)

direct.admin.command("configureFailPoint", "failCommand", mode="off")
print(f"callbacks {calls}")
print(f"documents {sorted(d['_id'] for d in coll.find())}")
