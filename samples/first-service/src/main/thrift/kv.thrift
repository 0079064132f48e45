namespace java example.kv

exception NotFound {
  1: string key
}

service KeyValue {
  void put(1: string key, 2: string value)
  string get(1: string key) throws (1: NotFound notFound)
}
