namespace java io.thriftnio.testkit.gen
namespace py thriftnio_bench

struct TradeReport { 1: string symbol, 2: double price, 3: i32 size, 4: i32 seq_num }
struct TestInfo {
  1: i64 id, 2: string name, 3: string dob, 4: double dbl, 5: bool voter,
  6: string addr1, 7: string addr2, 8: string addr_city, 9: string addr_state, 10: string addr_zip
}
struct Nested { 1: string id, 2: optional Nested other }
exception BenchError { 1: i32 code, 2: string message }

service BenchService {
  binary echo(1: binary payload)
  TradeReport get_last_sale(1: string symbol)
  list<TestInfo> db_work(1: i32 count)
  Nested get_nested(1: i32 depth)
  void sleep(1: i32 millis)
  void fail(1: i32 code, 2: string message) throws (1: BenchError error)
  oneway void fire(1: binary payload)
  i64 fired()
}
