namespace java example.greeter

service Greeter {
  string greet(1: string name)
  // As greet, after working for `millis` milliseconds: a call that is still running at shutdown.
  string greetSlowly(1: string name, 2: i32 millis)
}
