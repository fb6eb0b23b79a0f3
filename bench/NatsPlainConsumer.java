// The physical limit the nats source is measured against (bench/nats_source.py): a plain jnats consumer reading a
// stream's sequences [first, last] in `threads` ranges side by side, each through the same kind of consumer the
// source uses (ephemeral, no ack, in memory, by start sequence, iterate with the same batch), touching what a
// row needs (subject, payload, headers, sequence, timestamp). It runs on the jnats inside subjxform's jar:
//   java -cp subjxform-spark-4.2_2.13.jar bench/NatsPlainConsumer.java URL STREAM FIRST LAST THREADS BATCH ROUNDS
// and prints "messages seconds" of the best of ROUNDS reads in this one JVM (warm, as a Spark executor is by then).
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import subjxform.shaded.io.nats.client.Connection;
import subjxform.shaded.io.nats.client.ConsumeOptions;
import subjxform.shaded.io.nats.client.ConsumerContext;
import subjxform.shaded.io.nats.client.IterableConsumer;
import subjxform.shaded.io.nats.client.Message;
import subjxform.shaded.io.nats.client.Nats;
import subjxform.shaded.io.nats.client.api.AckPolicy;
import subjxform.shaded.io.nats.client.api.ConsumerConfiguration;
import subjxform.shaded.io.nats.client.api.DeliverPolicy;
import subjxform.shaded.io.nats.client.impl.NatsJetStreamMetaData;

public class NatsPlainConsumer {
  public static void main(String[] args) throws Exception {
    String url = args[0], stream = args[1];
    long first = Long.parseLong(args[2]), last = Long.parseLong(args[3]);
    int threads = Integer.parseInt(args[4]), batch = Integer.parseInt(args[5]), rounds = Integer.parseInt(args[6]);
    double best = Double.MAX_VALUE;
    long read = 0;
    for (int r = 0; r < rounds; r++) {
      long[] got = new long[1];
      double seconds = readOnce(url, stream, first, last, threads, batch, got);
      best = Math.min(best, seconds);
      read = got[0];
    }
    System.out.println(read + " " + best);
  }

  static double readOnce(String url, String stream, long first, long last, int threads, int batch, long[] read)
      throws Exception {
    AtomicLong messages = new AtomicLong(), checksum = new AtomicLong();
    List<Thread> workers = new ArrayList<>();
    long started = System.nanoTime();
    long length = last - first + 1;
    for (int k = 0; k < threads; k++) {
      long from = first + length * k / threads, to = first + length * (k + 1) / threads - 1;
      Thread t = new Thread(() -> {
        try (Connection c = Nats.connect(url)) {
          ConsumerContext cc = c.getStreamContext(stream).createOrUpdateConsumer(ConsumerConfiguration.builder()
              .deliverPolicy(DeliverPolicy.ByStartSequence).startSequence(from).ackPolicy(AckPolicy.None)
              .memStorage(true).numReplicas(1).inactiveThreshold(Duration.ofSeconds(30)).build());
          long n = 0, sum = 0;
          try (IterableConsumer it = cc.iterate(ConsumeOptions.builder().batchSize(batch).build())) {
            while (true) {
              Message m = it.nextMessage(5000);
              if (m == null) throw new IllegalStateException("no message for 5 s");
              NatsJetStreamMetaData meta = m.metaData();
              long seq = meta.streamSequence();
              if (seq > to) break;
              sum += m.getSubject().length() + m.getData().length + (m.getHeaders() == null ? 0 : m.getHeaders().size())
                  + meta.timestamp().getNano();
              n++;
              if (seq == to || meta.pendingCount() == 0) break;
            }
          }
          c.jetStreamManagement().deleteConsumer(stream, cc.getConsumerName());
          messages.addAndGet(n);
          checksum.addAndGet(sum);
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      workers.add(t);
      t.start();
    }
    for (Thread t : workers) t.join();
    read[0] = messages.get();
    return (System.nanoTime() - started) / 1e9;
  }
}
