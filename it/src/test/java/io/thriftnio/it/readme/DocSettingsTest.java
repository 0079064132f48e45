package io.thriftnio.it.readme;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.grizzly.GrizzlyClientIo;
import io.thriftnio.grizzly.GrizzlyThriftServer;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.PoolBuilder;
import io.thriftnio.pool.PoolStats;
import io.thriftnio.pool.ThriftAsyncClientPool;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every setting the documentation's settings tables name exists in the API: the first column of a
 * table headed "setting" under "## Servers", "## Clients" or "## Pools" names methods of that
 * section's builders, and any other camel-case name in back-quotes in such a table (a setting or a
 * counter mentioned in the "at the limit" column) is a public method of one of the API's builders,
 * configs or stats. A renamed setting breaks this test, not a reader's first build.
 */
class DocSettingsTest {

  /** The classes each section's first column is checked against. */
  private static final Map<String, List<Class<?>>> SECTIONS =
      Map.of(
          "Servers",
          List.of(
              ServerBuilder.class,
              NettyThriftServer.Builder.class,
              GrizzlyThriftServer.Builder.class),
          "Clients",
          List.of(ClientOptions.Builder.class),
          "Pools",
          List.of(
              PoolBuilder.class,
              ThriftChannelPool.Builder.class,
              ThriftClientPool.Builder.class,
              ThriftAsyncClientPool.Builder.class));

  /** Every API type whose methods a table may name. */
  private static final List<Class<?>> API =
      List.of(
          ServerBuilder.class,
          NettyThriftServer.Builder.class,
          GrizzlyThriftServer.Builder.class,
          ClientOptions.Builder.class,
          PoolBuilder.class,
          ThriftChannelPool.Builder.class,
          ThriftClientPool.Builder.class,
          ThriftAsyncClientPool.Builder.class,
          ServerTls.Builder.class,
          ServerSasl.Builder.class,
          ClientTls.Builder.class,
          GrizzlyClientIo.class,
          ServerStats.class,
          PoolStats.class);

  private static final Pattern CODE = Pattern.compile("`([a-z][A-Za-z]*)(?:\\([^`]*\\))?`");
  private static final Pattern CAMEL = Pattern.compile("`([a-z]+[A-Z][A-Za-z]*)`");

  @Test
  void everySettingATableNamesIsAMethodOfTheApi() throws Exception {
    List<String> missing = new ArrayList<>();
    int checked = 0;
    for (Path doc : DocBlocks.documents()) {
      String section = "";
      boolean inSettings = false;
      List<String> lines = Files.readAllLines(doc);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.startsWith("## ")) {
          section = line.substring(3).strip();
        }
        if (!line.startsWith("|")) {
          inSettings = false;
          continue;
        }
        String[] cells = line.split("\\|");
        if (cells.length > 1 && cells[1].strip().endsWith("setting")) {
          inSettings = true;
          continue;
        }
        if (!inSettings || line.startsWith("|---")) {
          continue;
        }
        String where = DocBlocks.root().relativize(doc) + ":" + (i + 1);
        List<Class<?>> owners = SECTIONS.getOrDefault(section, API);
        Matcher first = CODE.matcher(cells[1]);
        while (first.find()) {
          checked++;
          if (!hasMethod(owners, first.group(1))) {
            missing.add(where + ": `" + first.group(1) + "` is no method of " + names(owners));
          }
        }
        for (int c = 2; c < cells.length; c++) {
          Matcher other = CAMEL.matcher(cells[c]);
          while (other.find()) {
            checked++;
            if (!hasMethod(API, other.group(1))) {
              missing.add(where + ": `" + other.group(1) + "` is no method of the API");
            }
          }
        }
      }
    }
    assertThat(checked).as("settings named in the tables").isGreaterThan(40);
    assertThat(missing).as("settings the documentation names that the API lacks").isEmpty();
  }

  private static boolean hasMethod(List<Class<?>> types, String name) {
    for (Class<?> type : types) {
      for (Method m : type.getMethods()) {
        if (m.getName().equals(name) && Modifier.isPublic(m.getModifiers())) {
          return true;
        }
      }
    }
    return false;
  }

  private static Set<String> names(List<Class<?>> types) {
    return types.stream()
        .map(t -> t.getName().substring(t.getPackageName().length() + 1))
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
