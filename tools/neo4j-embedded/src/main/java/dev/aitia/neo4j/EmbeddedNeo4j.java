package dev.aitia.neo4j;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;

/**
 * Runs Neo4j 5.26 community embedded with only the Bolt connector, on loopback, auth disabled.
 *
 * <p>Usage: {@code EmbeddedNeo4j <dataDir> <port> [pageCacheMb]}. Prints exactly one line
 * {@code AITIA_NEO4J_READY bolt://127.0.0.1:<port>} once Bolt accepts connections, and shuts down
 * cleanly on SIGTERM or when its stdin closes (so a parent that dies never leaves it running).
 */
public final class EmbeddedNeo4j {
  private EmbeddedNeo4j() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: EmbeddedNeo4j <dataDir> <port> [pageCacheMb]");
      System.exit(2);
    }
    Path home = Path.of(args[0]).toAbsolutePath();
    int port = Integer.parseInt(args[1]);
    long pageCacheMb = args.length > 2 ? Long.parseLong(args[2]) : 256;

    DatabaseManagementService dbms =
        new DatabaseManagementServiceBuilder(home)
            .setConfig(BoltConnector.enabled, true)
            .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
            .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
            .setConfig(GraphDatabaseSettings.auth_enabled, false)
            .setConfig(GraphDatabaseSettings.pagecache_memory, pageCacheMb * 1024 * 1024)
            .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
            .setConfig(GraphDatabaseSettings.keep_logical_logs, "false")
            .build();

    CountDownLatch stopped = new CountDownLatch(1);
    AtomicBoolean shuttingDown = new AtomicBoolean(false);
    Runnable shutdown =
        () -> {
          if (shuttingDown.compareAndSet(false, true)) {
            System.err.println("aitia-neo4j: shutting down");
            dbms.shutdown();
            stopped.countDown();
          }
        };
    Runtime.getRuntime().addShutdownHook(new Thread(shutdown, "aitia-neo4j-shutdown"));

    // Touch the default database so the store is created before we report ready.
    GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    db.executeTransactionally("RETURN 1");
    System.out.println("AITIA_NEO4J_READY bolt://127.0.0.1:" + port);
    System.out.flush();

    Thread stdinWatcher =
        new Thread(
            () -> {
              try (InputStream in = System.in) {
                byte[] buf = new byte[256];
                while (in.read(buf) >= 0) {
                  // Input is ignored; only EOF matters.
                }
              } catch (IOException ignored) {
                // A broken stdin means the parent is gone too.
              }
              shutdown.run();
            },
            "aitia-neo4j-stdin");
    stdinWatcher.setDaemon(true);
    stdinWatcher.start();
    stopped.await();
    System.exit(0);
  }
}
