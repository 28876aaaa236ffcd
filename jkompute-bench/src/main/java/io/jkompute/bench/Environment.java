package io.jkompute.bench;

import io.jkompute.DeviceProperties;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Where a run happened: the device and its drivers, the JDK, the host and the date, so a table is never read without
 * them. {@code cudaDevice}/{@code cudaDriver} are null when no CUDA driver was found.
 */
public record Environment(String device, String deviceType, String vulkanApi, String vulkanDriver, String deviceUuid,
        String cudaDevice, String cudaDriver, String jdk, String os, int cpus, String date) {

    static Environment of(DeviceProperties p, String cudaDevice, String cudaDriver) {
        return new Environment(p.name(), p.type(), p.apiVersion(), p.driverVersion(), p.deviceUuidHex(), cudaDevice,
                cudaDriver, System.getProperty("java.vm.vendor") + " " + System.getProperty("java.vm.name") + " "
                        + Runtime.version(),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(),
                OffsetDateTime.now(ZoneOffset.UTC).withNano(0).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    }
}
