"""Drive the decongestant proxy with pymongo, as a mongos, for proxy/compat_test.go.

  python3 pymongo_compat.py HOST:PORT writes             mixed bulk writes and a 15.5 MiB document
                                                          (proxytest_py_writes.docs), then drops them
  python3 pymongo_compat.py HOST:PORT reads MODE N [TAGS] N reads of proxytest_py_matrix.c (30 documents,
                                                          k = _id % 3, seeded by the test) with read
                                                          preference MODE; TAGS a JSON list of tag sets
  python3 pymongo_compat.py HOST:PORT ryw N              on one connection (maxPoolSize=1, w=1): insert
                                                          {_id: "mine"} into proxy_compat_ryw.c and read it
                                                          back N times with secondaryPreferred
  python3 pymongo_compat.py HOST:PORT stepdown           insert (distinct _ids) into proxy_compat_failover.c
                                                          and read it with secondaryPreferred, on two threads;
                                                          print "started" once both have made 50 calls, wait
                                                          for a line on stdin (the primary stepped down), go on
                                                          for 50 more of each, stop, print the counts

It prints one line per check on stdout and exits non-zero on the first failure.
"""
import json
import sys
import threading
import time

import pymongo
from pymongo import DeleteMany, DeleteOne, InsertOne, ReplaceOne, UpdateMany, UpdateOne
from pymongo.errors import BulkWriteError
from pymongo.read_preferences import (
    Nearest,
    Primary,
    PrimaryPreferred,
    Secondary,
    SecondaryPreferred,
)

addr = sys.argv[1]
mode = sys.argv[2]
args = sys.argv[3:]


def connect(**kw):
    return pymongo.MongoClient(f"mongodb://{addr}/", serverSelectionTimeoutMS=60000, **kw)


def writes():
    """Four reads, all with the primary read preference: count, count, count, find_one."""
    client = connect()
    coll = client["proxytest_py_writes"]["docs"]
    coll.drop()
    coll.insert_many([{"_id": i, "k": i % 5} for i in range(50)])
    res = coll.bulk_write([
        InsertOne({"_id": 100}),
        InsertOne({"_id": 101}),
        InsertOne({"_id": 102}),
        UpdateOne({"_id": 100}, {"$set": {"x": 1}}),
        UpdateMany({"k": 1}, {"$set": {"flag": True}}),
        ReplaceOne({"_id": 102}, {"y": 2}),
        DeleteOne({"_id": 101}),
        DeleteMany({"k": 4}),
        UpdateOne({"_id": 200}, {"$set": {"z": 1}}, upsert=True),
    ])
    # updates: 1 + 10 (k 1) + 1; deletes: 1 + 10 (k 4); 50 + 3 - 11 + 1 left.
    got = (res.inserted_count, res.matched_count, res.modified_count, res.deleted_count, res.upserted_count)
    assert got == (3, 12, 12, 11, 1), f"inserted, matched, modified, deleted, upserted: {got}"
    assert res.upserted_ids == {8: 200}, res.upserted_ids
    n = coll.count_documents({})
    assert n == 43, n
    assert coll.count_documents({"flag": True}) == 10
    print("bulk_write inserted 3 matched 12 modified 12 deleted 11 upserted 1, 43 left")

    # Unordered: the duplicate fails, the writes around it are made.
    try:
        coll.bulk_write([InsertOne({"_id": 300}), InsertOne({"_id": 0}), InsertOne({"_id": 301})], ordered=False)
        raise AssertionError("a duplicate _id was inserted")
    except BulkWriteError as e:
        d = e.details
        errs = [(w["index"], w["code"]) for w in d["writeErrors"]]
        assert d["nInserted"] == 2 and errs == [(1, 11000)], d
    n = coll.count_documents({})
    assert n == 45, n
    print("unordered bulk_write inserted 2, duplicate at index 1, 45 left")

    # 15.5 MiB of string: the document is just under maxBsonObjectSize (16 MiB).
    big = "x" * (31 * 512 * 1024)
    coll.insert_one({"_id": "big", "s": big})
    back = coll.find_one({"_id": "big"})
    assert back is not None, "the big document was not found"
    assert back["s"] == big, "the big document came back changed"
    coll.delete_one({"_id": "big"})
    print("big document", len(big), "bytes ok")
    coll.drop()
    client.close()


MODES = {
    "primary": Primary,
    "primaryPreferred": PrimaryPreferred,
    "secondary": Secondary,
    "secondaryPreferred": SecondaryPreferred,
    "nearest": Nearest,
}


def reads(name, n, tags=None):
    """Exactly n reads (find, count, distinct, aggregate in turn), each one command but the
    find, whose getMores (batches of 4) the proxy does not count as reads."""
    if tags is not None:
        pref = MODES[name](tag_sets=json.loads(tags))
    else:
        pref = MODES[name]()
    client = connect()
    coll = client["proxytest_py_matrix"].get_collection("c", read_preference=pref)
    for i in range(n):
        kind = i % 4
        if kind == 0:
            docs = list(coll.find({}, batch_size=4))
            assert len(docs) == 30, len(docs)
        elif kind == 1:
            assert coll.count_documents({"k": 1}) == 10
        elif kind == 2:
            assert sorted(coll.distinct("k")) == [0, 1, 2]
        else:
            assert len(list(coll.aggregate([{"$match": {"k": 2}}]))) == 10
    print("reads", name, n)
    client.close()


def ryw(n):
    # One connection, so the write and the reads share it; w=1, as the
    # secondaries (paused by the test) will not acknowledge.
    client = connect(maxPoolSize=1, w=1)
    coll = client["proxy_compat_ryw"]["c"]
    coll.insert_one({"_id": "mine"})
    sp = coll.with_options(read_preference=SecondaryPreferred())
    found = sum(1 for _ in range(n) if sp.find_one({"_id": "mine"}) is not None)
    print("ryw found", found, "of", n)
    client.close()


def stepdown():
    # No timeouts but server selection's: the driver retries a write or a
    # read once, on the topology it sees then.
    client = connect()
    coll = client["proxy_compat_failover"]["c"]
    sp = coll.with_options(read_preference=SecondaryPreferred())
    stop = threading.Event()
    count = {"written": 0, "read": 0}
    errors = []

    def writer():
        try:
            i = 0
            while not stop.is_set():
                coll.insert_one({"_id": i})
                i += 1
                count["written"] = i
        except Exception as e:  # handed to the main thread
            errors.append(f"insert: {e!r}")

    def reader():
        try:
            while not stop.is_set():
                sp.find_one({"_id": 0})
                count["read"] += 1
        except Exception as e:
            errors.append(f"find: {e!r}")

    threads = [threading.Thread(target=writer), threading.Thread(target=reader)]
    for th in threads:
        th.start()

    def until(cond):
        while not cond():
            if errors:
                stop.set()
                for th in threads:
                    th.join()
                raise AssertionError("; ".join(errors))
            time.sleep(0.05)

    until(lambda: count["written"] >= 50 and count["read"] >= 50)
    print("started", flush=True)
    sys.stdin.readline()
    w0, r0 = count["written"], count["read"]
    until(lambda: count["written"] >= w0 + 50 and count["read"] >= r0 + 50)
    stop.set()
    for th in threads:
        th.join()
    if errors:
        raise AssertionError("; ".join(errors))
    print("written", count["written"], "read", count["read"], flush=True)
    client.close()


if mode == "writes":
    writes()
elif mode == "reads":
    reads(args[0], int(args[1]), args[2] if len(args) > 2 else None)
elif mode == "ryw":
    ryw(int(args[0]))
elif mode == "stepdown":
    stepdown()
else:
    sys.exit(f"unknown mode {mode}: want writes, reads, ryw or stepdown")
