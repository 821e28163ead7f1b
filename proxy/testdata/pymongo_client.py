"""Drive the decongestant proxy with pymongo, as a mongos: argv[1] is its host:port, or
argv[2], when given, a URI to connect with (credentials, TLS options).

Prints one line per checked operation and exits non-zero on the first failure.
"""
import sys

import pymongo
from pymongo.write_concern import WriteConcern

addr = sys.argv[1]
uri = sys.argv[2] if len(sys.argv) > 2 else f"mongodb://{addr}/"
client = pymongo.MongoClient(uri, serverSelectionTimeoutMS=60000)
client.admin.command("ping")
kind = client.topology_description.topology_type_name
assert kind == "Sharded", f"pymongo sees a {kind} topology, want Sharded (a mongos)"
print("topology", kind)

db = client["proxytest_py"]
db.drop_collection("docs")
coll = db["docs"]
coll.insert_many([{"_id": i, "k": i % 5} for i in range(50)])
ids = [d["_id"] for d in coll.find({}, batch_size=2).sort("_id", 1)]
assert ids == list(range(50)), ids
print("find", len(ids))
agg = list(coll.aggregate([{"$group": {"_id": None, "sum": {"$sum": "$_id"}}}]))
assert agg[0]["sum"] == 1225, agg
print("aggregate", agg[0]["sum"])
n = coll.count_documents({"k": 3})
assert n == 10, n
print("count", n)
ks = sorted(coll.distinct("k"))
assert ks == [0, 1, 2, 3, 4], ks
print("distinct", ks)
with client.start_session() as s:
    def txn(s):
        coll.insert_one({"_id": "txn"}, session=s)
        coll.update_one({"_id": "txn"}, {"$set": {"done": True}}, session=s)
    s.with_transaction(txn)
assert coll.find_one({"_id": "txn"})["done"] is True
print("transaction ok")
coll.with_options(write_concern=WriteConcern(w=0)).insert_one({"_id": "w0"})
for _ in range(600):
    if coll.count_documents({"_id": "w0"}) == 1:
        break
else:
    raise AssertionError("the w:0 insert never arrived")
print("w0 ok")
db.drop_collection("docs")
client.close()
