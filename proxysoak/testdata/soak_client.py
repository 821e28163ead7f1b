"""The pymongo half of `decongestant proxy-soak`: THREADS threads share one MongoClient
whose pool keeps THREADS connections to the proxy open, and each runs the soak's operations
until DURATION seconds have passed:

    python3 soak_client.py URI_FILE THREADS DURATION INTERVAL TXN_EVERY READ_SHARE PREFIX OUT

URI_FILE holds the proxy's URI (with the soak user's password, so that it is not on argv).
Every operation is one line of OUT, tab-separated: start (Unix seconds), duration (ms),
operation (insert, read, txn), error kind ("" when it succeeded), and the id an acknowledged
insert or transaction wrote. Inserts are w:majority into soak.docs; a transaction first
inserts its counter document {_id, n: 0} into soak.counters (w:majority), then increments it
once with ClientSession.with_transaction; reads are secondaryPreferred finds of the thread's
latest insert.
"""
import random
import sys
import threading
import time

import pymongo
from pymongo.read_preferences import SecondaryPreferred
from pymongo.write_concern import WriteConcern

uri_file, threads, duration, interval, txn_every, read_share, prefix, out = sys.argv[1:9]
threads, duration, interval = int(threads), float(duration), float(interval)
txn_every, read_share = int(txn_every), float(read_share)
with open(uri_file) as f:
    uri = f.read().strip()

client = pymongo.MongoClient(uri, minPoolSize=threads, maxPoolSize=threads,
                             serverSelectionTimeoutMS=30000, socketTimeoutMS=60000,
                             appname="decongestant-soak-py")
majority = WriteConcern("majority")
db = client.get_database("soak", write_concern=majority)
docs, counters = db["docs"], db["counters"]
reads = client.get_database("soak", read_preference=SecondaryPreferred())["docs"]
end = time.time() + duration
lock = threading.Lock()
lines = []


def kind(e):
    name = type(e).__name__
    code = getattr(e, "code", None)
    return f"{name}:{code}" if code else name


def worker(w):
    rnd = random.Random(f"{prefix}-{w}")
    last, seq = None, 0
    mine = []
    while True:
        time.sleep(interval * (0.5 + rnd.random()))
        if time.time() >= end:
            break
        seq += 1
        ident = f"{prefix}-{w}-{seq}"
        start = time.time()
        err, wrote = "", ""
        if txn_every > 0 and seq % txn_every == 0:
            op = "txn"
            try:
                counters.insert_one({"_id": ident, "n": 0})
                with client.start_session() as s:
                    s.with_transaction(lambda s: counters.update_one({"_id": ident}, {"$inc": {"n": 1}}, session=s),
                                       write_concern=majority)
                wrote = ident
            except Exception as e:  # every failure is a measured outcome
                err = kind(e)
        elif last is not None and rnd.random() < read_share:
            op = "read"
            try:
                reads.find_one({"_id": last})
            except Exception as e:
                err = kind(e)
        else:
            op = "insert"
            try:
                docs.insert_one({"_id": ident, "w": w})
                wrote, last = ident, ident
            except Exception as e:
                err = kind(e)
        mine.append(f"{start:.6f}\t{(time.time() - start) * 1000:.3f}\t{op}\t{err}\t{wrote}\n")
    with lock:
        lines.extend(mine)


ts = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
for t in ts:
    t.start()
for t in ts:
    t.join()
with open(out, "w") as f:
    f.writelines(lines)
client.close()
