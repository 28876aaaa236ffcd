package io.jkompute.net.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The benchmark's smoke test: every case runs raw and through jkompute with a peer JVM, every message checked. */
class NetBenchmarkTest {
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void everyCaseRunsBothWaysAndChecksEveryMessage() throws Exception {
        // peers start as the module's other child JVMs do: jarred classes and their class-data archive
        io.jkompute.net.ChildClasses.startChildrenFromArchive();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        // the split GPU pipeline row is GpuPipelineSplitTest's work here: without an apps folder it says it is skipped
        String apps = System.getProperty(NetBenchmark.APPS);
        System.setProperty(NetBenchmark.APPS, "no-apps-folder");
        List<NetBenchmark.Row> rows;
        try {
            rows = NetBenchmark.run(new NetBenchmark.Counts(300, 50, 200, 6, 2), new PrintStream(log, true, StandardCharsets.UTF_8));
        } finally {
            if (apps == null) System.clearProperty(NetBenchmark.APPS);
            else System.setProperty(NetBenchmark.APPS, apps);
        }
        String table = NetBenchmark.table(rows);
        // the device row runs where CUDA is (the GPU host's one-JVM suite), and says why it is skipped elsewhere
        boolean cuda = DeviceIpc.unavailable() == null;
        List<String> names = new java.util.ArrayList<>(List.of("small 64 B, queue 4", "small 64 B, queue 256",
                "small 64 B, 8 per tick, queue 256",
                "ping p50 per hop", "ping p99 per hop", "4 KiB, queue 256", "128 KiB, queue 64", "1 MiB, queue 64", "64 MiB, queue 4",
                "same host 1 MiB, queue 64", "same host 64 MiB, queue 4"));
        // messages checked, raw and jkompute together: counts, sequence, stamps and checksum of each
        // (the same-host 64 MiB case sends five times the 64 MiB count: it is short at memory speed; the device row
        // checks the contents of its first and last message; the ping checks its warm-up round trips too)
        List<Long> checked = new java.util.ArrayList<>(List.of(600L, 600L, 592L, 200L, 200L, 400L, 96L, 12L, 4L, 12L, 20L));
        if (cuda) {
            names.add(DeviceIpc.ROW);
            checked.add(2L);
        }
        assertEquals(names, rows.stream().map(NetBenchmark.Row::name).toList(), table);
        assertEquals(checked, rows.stream().map(NetBenchmark.Row::checked).toList(), table);
        for (NetBenchmark.Row r : rows) {
            assertTrue(r.raw() > 0 && r.jkompute() > 0, table);
        }
        String out = log.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains(String.format("%-8s %-22s 2 messages checked", "graph", "64 MiB, queue 4")), out);
        assertTrue(out.contains(String.format("%-8s %-22s 2 messages checked", "raw", "64 MiB, queue 4")), out);
        assertTrue(out.contains(String.format("%-8s %-22s 10 messages checked", "graph", "same host 64 MiB, queue 4")),
                out);
        assertTrue(out.contains("skipped " + NetBenchmark.SPLIT + ": no apps folder at "), out);
        assertEquals(!cuda, out.contains("skipped " + DeviceIpc.ROW + ": no CUDA here ("), out);
        assertTrue(table.startsWith("case "), table);
    }
}
