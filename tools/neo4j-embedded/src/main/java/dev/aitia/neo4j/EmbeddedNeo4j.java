package dev.aitia.neo4j;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.neo4j.configuration.Config;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;
import org.neo4j.io.fs.DefaultFileSystemAbstraction;
import org.neo4j.kernel.impl.security.User;
import org.neo4j.logging.NullLogProvider;
import org.neo4j.memory.EmptyMemoryTracker;
import org.neo4j.server.security.SecureHasher;
import org.neo4j.server.security.SystemGraphCredential;
import org.neo4j.server.security.auth.CommunitySecurityModule;
import org.neo4j.server.security.auth.FileUserRepository;

/**
 * Runs Neo4j 5.26 community embedded with only the Bolt connector, on loopback, with native auth: the
 * user {@code neo4j} has the password read from a file (owner-only; the caller creates it).
 *
 * <p>Usage: {@code EmbeddedNeo4j <dataDir> <port> <pageCacheMb> <passwordFile>}. Prints exactly one
 * line {@code AITIA_NEO4J_READY bolt://127.0.0.1:<port>} once Bolt accepts connections, and shuts
 * down cleanly on SIGTERM or when its stdin closes (so a parent that dies never leaves it running).
 *
 * <p>The password reaches Neo4j the way {@code neo4j-admin dbms set-initial-password} does it: the
 * launcher writes {@code data/dbms/auth.ini} (a salted hash, not the password) before the DBMS
 * starts, and Neo4j applies it while the {@code neo4j} user still has the default password (a new
 * store, or one that ran with auth disabled), before Bolt listens. Once started, the launcher checks
 * the stored credential against the file through the embedded API and sets it if it differs (the
 * file was replaced), then deletes {@code auth.ini}.
 */
public final class EmbeddedNeo4j {
  private EmbeddedNeo4j() {}

  static final String USER = "neo4j";

  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: EmbeddedNeo4j <dataDir> <port> <pageCacheMb> <passwordFile>");
      System.exit(2);
    }
    Path home = Path.of(args[0]).toAbsolutePath();
    int port = Integer.parseInt(args[1]);
    long pageCacheMb = Long.parseLong(args[2]);
    String password = readPassword(Path.of(args[3]).toAbsolutePath());

    Path initialAuth = writeInitialPassword(home, password);
    DatabaseManagementService dbms =
        new DatabaseManagementServiceBuilder(home)
            .setConfig(BoltConnector.enabled, true)
            .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
            .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
            .setConfig(GraphDatabaseSettings.auth_enabled, true)
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

    ensurePassword(dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME), password);
    Files.deleteIfExists(initialAuth);
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

  /** The first line of the password file; exits with a clear message when it is missing or short. */
  static String readPassword(Path file) throws IOException {
    String password;
    try {
      password = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (NoSuchFileException e) {
      System.err.println("aitia-neo4j: password file not found: " + file);
      System.exit(2);
      return null;
    }
    if (password.length() < 8 || password.contains("\n")) {
      System.err.println("aitia-neo4j: password file " + file + " must hold one line of 8 or more characters");
      System.exit(2);
    }
    return password;
  }

  /**
   * What {@code neo4j-admin dbms set-initial-password} writes: {@code auth.ini} with the user
   * {@code neo4j} and a salted hash of the password, no change required.
   */
  static Path writeInitialPassword(Path home, String password) throws Exception {
    Config config = Config.newBuilder().set(GraphDatabaseSettings.neo4j_home, home).build();
    Path file = CommunitySecurityModule.getInitialUserRepositoryFile(config);
    Files.createDirectories(file.getParent());
    Files.deleteIfExists(file);
    var fs = new DefaultFileSystemAbstraction();
    var repo = new FileUserRepository(fs, file, NullLogProvider.getInstance(), EmptyMemoryTracker.INSTANCE);
    repo.start();
    SystemGraphCredential credential =
        SystemGraphCredential.createCredentialForPassword(password.getBytes(StandardCharsets.UTF_8), new SecureHasher());
    repo.create(new User(USER, null, credential, false, false));
    repo.shutdown();
    fs.close();
    return file;
  }

  /**
   * The stored credential of {@code neo4j} matches the file, or is set to it (the file was replaced
   * since the store was created). Embedded transactions run with full access, whatever Bolt asks.
   */
  static void ensurePassword(GraphDatabaseService system, String password) throws Exception {
    byte[] bytes = password.getBytes(StandardCharsets.UTF_8);
    boolean matches;
    boolean exists;
    try (Transaction tx = system.beginTx()) {
      Node user = tx.findNode(Label.label("User"), "name", USER);
      exists = user != null;
      matches =
          exists
              && !Boolean.TRUE.equals(user.getProperty("passwordChangeRequired", false))
              && SystemGraphCredential.deserialize(String.valueOf(user.getProperty("credentials")), new SecureHasher())
                  .matchesPassword(bytes);
    }
    if (matches) return;
    String cypher =
        exists
            ? "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED"
            : "CREATE USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED";
    system.executeTransactionally(cypher, Map.of("password", password));
    System.err.println("aitia-neo4j: " + (exists ? "set" : "created") + " the password of user neo4j from the password file");
  }
}
